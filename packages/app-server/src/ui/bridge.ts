import { extensionName } from "@knightcode/agent/extensions/host";
import { runHandler } from "@knightcode/agent/extensions/hook-limit";
import type { DialogOptions, ExtensionUI, NotifyLevel, ScopedExtensionUI, WidgetPlacement } from "@knightcode/agent/extensions/types";
import type { Warning } from "@knightcode/system/warning";
import type { ServerNotificationParams, ThreadUi, View, ViewControl } from "@knightcode/app-server-protocol";
import { checkView, findControl, MAX_WIDGET_VIEW_BYTES } from "./views.js";
import type { ThreadDialogOptions } from "./dialogs.js";

export const MAX_WIDGET_BYTES = MAX_WIDGET_VIEW_BYTES;
export const MAX_WIDGETS = 16;
export const MAX_STATUSES = 50;
export const MAX_TEXT_CODE_POINTS = 200;

// CSI, OSC and two-character escape sequences.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** ANSI removed, one line, at most 200 code points. */
export function oneLine(text: string): string {
  const flat = stripAnsi(String(text)).replace(/[\r\n\t\u2028\u2029]+/g, " ");
  const points = [...flat];
  return points.length <= MAX_TEXT_CODE_POINTS ? flat : points.slice(0, MAX_TEXT_CODE_POINTS).join("");
}

export type UiSnapshot = ThreadUi;

type UiMethod = "ui/state" | "ui/widget" | "ui/notify";

export interface UiBridgeOptions {
  threadId: string;
  /** A notification to the thread's subscribers. */
  send<M extends UiMethod>(method: M, params: ServerNotificationParams<M>): void;
  warn(warning: Warning): void;
  log(line: string): void;
  /** Where select, confirm, input and editor go: the thread's dialogs. */
  dialogs: Pick<ExtensionUI, "select" | "confirm" | "input" | "editor">;
}

type Widget = { key: string; placement: WidgetPlacement; lines: string[] } | { key: string; placement: WidgetPlacement; view: View };

export interface ViewEvent {
  widgetKey: string;
  id: string;
  value?: string | boolean;
}

type ViewHandler = (event: ViewEvent) => void | Promise<void>;

/** A handler and the extension that registered it, when the host said which. */
interface ViewListener {
  handler: ViewHandler;
  path?: string;
}

function describeError(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "an error that cannot be shown";
  }
}

/**
 * Widget lines as sent: each a string without ANSI escapes or line breaks,
 * spacing kept; undefined when the lines are not strings or are over the
 * limit. Getters are not run: a line is what the array holds.
 */
function widgetLines(content: unknown[]): string[] | undefined {
  // Each line costs at least its quotes and a comma as JSON.
  if (content.length > MAX_WIDGET_BYTES / 3) return undefined;
  const lines: string[] = [];
  for (let i = 0; i < content.length; i++) {
    const slot = Object.getOwnPropertyDescriptor(content, i);
    const line = slot && "value" in slot ? slot.value : undefined;
    if (typeof line !== "string" && typeof line !== "number" && typeof line !== "boolean") return undefined;
    lines.push(stripAnsi(String(line)).replace(/[\r\n]+/g, " "));
  }
  return lines;
}

/** The widget an extension's content makes (lines or a view, checked and copied), or why it makes none. */
function widgetOf(key: string, placement: WidgetPlacement, content: object): Widget | { refused: string } {
  let lines: string[] | undefined;
  try {
    if (!Array.isArray(content)) {
      const checked = checkView(content, MAX_WIDGET_BYTES);
      return checked.ok ? { key, placement, view: checked.view } : { refused: `its view is invalid: ${checked.reason}` };
    }
    lines = widgetLines(content);
  } catch {
    return { refused: "its content could not be read" };
  }
  if (!lines) return { refused: `its lines must be strings, at most ${MAX_WIDGET_BYTES} bytes in all` };
  if (Buffer.byteLength(JSON.stringify(lines)) > MAX_WIDGET_BYTES) return { refused: `widgets are limited to ${MAX_WIDGET_BYTES} bytes` };
  return { key, placement, lines };
}

/**
 * A desktop thread's extension UI on the server side: what extensions show
 * (statuses, widgets, title, working message) kept as state and sent to the
 * thread's subscribers, within the limits; what only a terminal can draw
 * does nothing and says so once per method in the log.
 */
export class UiBridge implements ScopedExtensionUI {
  private readonly statuses = new Map<string, string>();
  private readonly widgets: Widget[] = [];
  private title: string | undefined;
  private workingMessage: string | undefined;
  private workingVisible = true;
  private readonly refused = new Set<string>();
  private readonly loggedOnce = new Set<string>();
  private readonly viewListeners = new Set<ViewListener>();

  constructor(private readonly options: UiBridgeOptions) {}

  snapshot(): UiSnapshot {
    const statuses = [...this.statuses].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, text]) => ({ key, text }));
    const ordered = [...this.widgets.filter((w) => w.placement === "aboveEditor"), ...this.widgets.filter((w) => w.placement === "belowEditor")];
    return {
      statuses,
      ...(this.title !== undefined ? { title: this.title } : {}),
      ...(this.workingMessage !== undefined ? { workingMessage: this.workingMessage } : {}),
      workingVisible: this.workingVisible,
      widgets: ordered.map((w) => ({ ...w })),
    };
  }

  private sendState(): void {
    const { widgets: _widgets, ...state } = this.snapshot();
    this.options.send("ui/state", { threadId: this.options.threadId, ...state });
  }

  private refuse(kind: "status" | "widget", key: string, why: string): void {
    const id = `${kind}\u0000${key}`;
    if (this.refused.has(id)) return;
    this.refused.add(id);
    this.options.warn({ message: `${kind} ${JSON.stringify(key.slice(0, 128))} refused: ${why}`, source: "extension" });
  }

  private validKey(kind: "status" | "widget", key: unknown): key is string {
    if (typeof key === "string" && key.length >= 1 && key.length <= 128) return true;
    this.refuse(kind, String(key), "keys are 1 to 128 characters");
    return false;
  }

  select(title: string, options: string[], opts?: DialogOptions): Promise<string | undefined> {
    return this.options.dialogs.select(title, options, opts);
  }

  confirm(title: string, message: string, opts?: ThreadDialogOptions): Promise<boolean> {
    return this.options.dialogs.confirm(title, message, opts);
  }

  input(title: string, placeholder?: string, opts?: DialogOptions): Promise<string | undefined> {
    return this.options.dialogs.input(title, placeholder, opts);
  }

  editor(title: string, prefill?: string, opts?: DialogOptions): Promise<string | undefined> {
    return this.options.dialogs.editor(title, prefill, opts);
  }

  notify(message: string, level: NotifyLevel = "info"): void {
    const safe = level === "warning" || level === "error" ? level : "info";
    this.options.send("ui/notify", { threadId: this.options.threadId, message: oneLine(message), level: safe });
  }

  setStatus(key: string, text: string | undefined): void {
    if (!this.validKey("status", key)) return;
    if (text === undefined || text === null) {
      if (!this.statuses.delete(key)) return;
    } else {
      if (!this.statuses.has(key) && this.statuses.size >= MAX_STATUSES) return this.refuse("status", key, `a thread shows at most ${MAX_STATUSES} statuses`);
      const next = oneLine(text);
      if (this.statuses.get(key) === next) return;
      this.statuses.set(key, next);
    }
    this.sendState();
  }

  setWidget(key: string, content: string[] | object | undefined, options: { placement?: WidgetPlacement } = {}): void {
    if (typeof content === "function") return this.once("setWidget", "widget factories draw only in a terminal; give lines or a view");
    if (!this.validKey("widget", key)) return;
    const at = this.widgets.findIndex((w) => w.key === key);
    if (content === undefined || content === null) {
      if (at === -1) return;
      this.widgets.splice(at, 1);
      this.options.send("ui/widget", { threadId: this.options.threadId, key });
      return;
    }
    const placement: WidgetPlacement = options?.placement === "belowEditor" ? "belowEditor" : "aboveEditor";
    const widget = widgetOf(key, placement, content);
    if ("refused" in widget) return this.refuse("widget", key, widget.refused);
    if (at === -1 && this.widgets.length >= MAX_WIDGETS) return this.refuse("widget", key, `a thread shows at most ${MAX_WIDGETS} widgets`);
    if (at !== -1) this.widgets.splice(at, 1);
    this.widgets.push(widget);
    this.options.send("ui/widget", { threadId: this.options.threadId, ...widget });
  }

  setTitle(title: string | undefined): void {
    const next = title === undefined || title === null ? undefined : oneLine(title);
    if (next === this.title) return;
    this.title = next;
    this.sendState();
  }

  setWorkingMessage(message?: string): void {
    const next = message === undefined || message === null ? undefined : oneLine(message);
    if (next === this.workingMessage) return;
    this.workingMessage = next;
    this.sendState();
  }

  setWorkingVisible(visible: boolean): void {
    if (Boolean(visible) === this.workingVisible) return;
    this.workingVisible = Boolean(visible);
    this.sendState();
  }

  onViewEvent(handler: ViewHandler): () => void {
    return this.addViewListener(handler, undefined);
  }

  private addViewListener(handler: ViewHandler, path: string | undefined): () => void {
    if (typeof handler !== "function") throw new TypeError("onViewEvent needs a function");
    const listener: ViewListener = { handler, ...(path === undefined ? {} : { path }) };
    this.viewListeners.add(listener);
    return () => void this.viewListeners.delete(listener);
  }

  /** The UI one extension sees: this bridge, with its view handlers marked as that extension's. */
  forExtension(path: string): ExtensionUI {
    return {
      select: this.select.bind(this),
      confirm: this.confirm.bind(this),
      input: this.input.bind(this),
      editor: this.editor.bind(this),
      notify: this.notify.bind(this),
      setStatus: this.setStatus.bind(this),
      setWidget: this.setWidget.bind(this),
      setTitle: this.setTitle.bind(this),
      setWorkingMessage: this.setWorkingMessage.bind(this),
      setWorkingVisible: this.setWorkingVisible.bind(this),
      onViewEvent: (handler) => this.addViewListener(handler, path),
      custom: this.custom.bind(this),
      setHeader: this.setHeader.bind(this),
      setFooter: this.setFooter.bind(this),
      setEditorText: this.setEditorText.bind(this),
      getEditorText: this.getEditorText.bind(this),
      pasteToEditor: this.pasteToEditor.bind(this),
    };
  }

  /** The control `id` in the view of the widget `widgetKey`, as the client was last sent it; none when either is gone. */
  control(widgetKey: string, id: string): ViewControl | undefined {
    const widget = this.widgets.find((w) => w.key === widgetKey);
    return widget && "view" in widget ? findControl(widget.view, id) : undefined;
  }

  /**
   * Gives an event to every view handler at once, each its own copy, and
   * waits for them at most `limitMs`. A handler that throws, rejects or
   * runs past the limit becomes a warning naming its extension; the others
   * are not held up by it, and nothing here changes a view.
   */
  async dispatchViewEvent(event: ViewEvent, limitMs: number): Promise<void> {
    const listeners = [...this.viewListeners];
    await Promise.all(
      listeners.map(async ({ handler, path }) => {
        const outcome = await runHandler(() => handler({ ...event }), { limitMs });
        if (outcome.kind === "returned" || outcome.kind === "interrupted") return;
        const who = path === undefined ? "an extension" : extensionName(path);
        const message =
          outcome.kind === "timedOut"
            ? `view event handler of ${who} did not finish within ${outcome.limitMs} ms; it was abandoned`
            : `view event handler of ${who} failed: ${describeError(outcome.error)}`;
        this.options.warn({ message, source: "extension", ...(path === undefined ? {} : { path }) });
      }),
    );
  }

  /** The thread unloads: no handler is called again. */
  dispose(): void {
    this.viewListeners.clear();
  }

  /** Clears what the old extensions showed, before a reload's new ones start. */
  reset(): void {
    for (const widget of this.widgets.splice(0)) this.options.send("ui/widget", { threadId: this.options.threadId, key: widget.key });
    this.statuses.clear();
    this.title = undefined;
    this.workingMessage = undefined;
    this.workingVisible = true;
    this.refused.clear();
    this.loggedOnce.clear();
    this.viewListeners.clear();
    this.sendState();
  }

  private once(method: string, message: string): void {
    if (this.loggedOnce.has(method)) return;
    this.loggedOnce.add(method);
    this.options.log(`thread ${this.options.threadId}: ui.${method}: ${message}`);
  }

  async custom(): Promise<unknown> {
    this.once("custom", "custom components draw only in a terminal");
    return undefined;
  }

  setHeader(): void {
    this.once("setHeader", "headers draw only in a terminal");
  }

  setFooter(): void {
    this.once("setFooter", "footers draw only in a terminal");
  }

  setEditorText(): void {
    this.once("setEditorText", "the editor is the client's");
  }

  getEditorText(): string {
    this.once("getEditorText", "the editor is the client's");
    return "";
  }

  pasteToEditor(): void {
    this.once("pasteToEditor", "the editor is the client's");
  }
}
