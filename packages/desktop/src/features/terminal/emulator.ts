// The terminal emulator: loaded on demand (through import() in shells.ts) when the user
// first opens a terminal, so xterm's weight is not in the page's first load.
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";

/** One terminal on screen: what shells.ts drives. */
export interface Emulator {
  readonly cols: number;
  readonly rows: number;
  /** Shows the terminal in `host` (opened there the first time), sized to it and following its size; returns what takes it out. */
  show(host: HTMLElement): () => void;
  write(bytes: Uint8Array): void;
  /** A line of the page's own, dimmed, under what the command printed. */
  note(text: string): void;
  focus(): void;
  dispose(): void;
}

export interface EmulatorEvents {
  /** Keystrokes and pastes, as the bytes the terminal sends. */
  input(bytes: Uint8Array): void;
  resize(cols: number, rows: number): void;
}

const encoder = new TextEncoder();
let stylesheet: Promise<void> | undefined;

/** xterm's own stylesheet, a file of the page's that the build keeps out of app.css; linked once. */
function linkStylesheet(): Promise<void> {
  stylesheet ??= new Promise<void>((resolve, reject) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = "/xterm.css";
    link.addEventListener("load", () => resolve(), { once: true });
    link.addEventListener("error", () => reject(new Error("the terminal's stylesheet /xterm.css did not load")), { once: true });
    document.head.append(link);
  });
  return stylesheet;
}

/**
 * xterm styles its screen through <style> elements whose text it sets,
 * which the page's Content-Security-Policy (`style-src 'self'`) refuses
 * (an empty one too, once in the document). While `open` runs, which is
 * when xterm makes them, a <style> asked for is an inert <template> whose
 * text goes to a constructed style sheet the document adopts instead: the
 * policy governs no such sheet, and the page's own styles stay as strict.
 * xterm only sets their text and removes them. Answers what drops those
 * sheets again.
 */
function withoutInlineStyles(open: () => void): () => void {
  const sheets: CSSStyleSheet[] = [];
  const own = Object.getOwnPropertyDescriptor(document, "createElement");
  const create = document.createElement;
  const createElement = (tag: string, options?: ElementCreationOptions): HTMLElement => {
    if (tag.toLowerCase() !== "style") return create.call(document, tag, options);
    const standIn = create.call(document, "template");
    sheets.push(adoptText(standIn));
    return standIn;
  };
  Object.defineProperty(document, "createElement", { value: createElement, configurable: true, writable: true });
  try {
    open();
  } finally {
    if (own) Object.defineProperty(document, "createElement", own);
    else delete (document as { createElement?: unknown }).createElement;
  }
  return () => {
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((sheet) => !sheets.includes(sheet));
  };
}

/** A sheet the document adopts that holds what is written as `element`'s text; the element itself stays empty. */
function adoptText(element: HTMLElement): CSSStyleSheet {
  const sheet = new CSSStyleSheet();
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  let text = "";
  Object.defineProperty(element, "textContent", {
    configurable: true,
    get: () => text,
    set: (value: string | null) => {
      text = value ?? "";
      sheet.replaceSync(text);
    },
  });
  return sheet;
}

/** The page's colours and monospace font, read from its stylesheet where the terminal shows. */
function looks(host: HTMLElement): { fontFamily: string; theme: { background: string; foreground: string; cursor: string } } {
  const style = getComputedStyle(host);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const foreground = read("--fg", "#1f2328");
  return { fontFamily: read("--mono", "monospace"), theme: { background: read("--bg", "#ffffff"), foreground, cursor: foreground } };
}

/** A terminal named `label` (its input's accessible name), not yet on screen. */
export async function createEmulator(label: string, events: EmulatorEvents): Promise<Emulator> {
  await linkStylesheet();
  const term = new Terminal({ fontSize: 13, scrollback: 5000, cursorBlink: false });
  const fit = new FitAddon();
  term.loadAddon(fit);
  const subscriptions = [
    term.onData((text) => events.input(encoder.encode(text))),
    // Bytes as single characters (some mouse reports): sent as they are, not as UTF-8.
    term.onBinary((text) => events.input(Uint8Array.from(text, (c) => c.charCodeAt(0)))),
    term.onResize(({ cols, rows }) => events.resize(cols, rows)),
  ];
  let dropSheets: (() => void) | undefined;
  const refit = () => {
    // A hidden host has no size: the terminal keeps its last one.
    if (term.element?.isConnected && term.element.clientWidth > 0 && fit.proposeDimensions()) fit.fit();
  };
  return {
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    show(host) {
      if (term.element) host.append(term.element);
      else {
        term.options = looks(host);
        dropSheets = withoutInlineStyles(() => term.open(host));
        term.textarea?.setAttribute("aria-label", `${label} input`);
      }
      refit();
      const observer = new ResizeObserver(refit);
      observer.observe(host);
      return () => {
        observer.disconnect();
        term.element?.remove();
      };
    },
    write: (bytes) => term.write(bytes),
    note: (text) => term.write(`\r\n\u001b[2m${text}\u001b[0m\r\n`),
    focus: () => term.focus(),
    dispose() {
      for (const subscription of subscriptions) subscription.dispose();
      term.dispose();
      dropSheets?.();
    },
  };
}
