import type { DialogOptions, ExtensionUI, NotifyLevel, Warning, WidgetPlacement } from "@knightcode/agent";
import type { ServerNotificationParams, ThreadUi } from "@knightcode/app-server-protocol";

export const MAX_WIDGET_BYTES = 16 * 1024;
export const MAX_WIDGETS = 16;
export const MAX_STATUSES = 50;
export const MAX_TEXT_CODE_POINTS = 200;
export const MAX_VIEW_DEPTH = 8;

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

type Widget = { key: string; placement: WidgetPlacement; lines: string[] } | { key: string; placement: WidgetPlacement; view: unknown };

function depthOf(value: unknown, depth = 0): number {
  if (value === null || typeof value !== "object") return depth;
  let max = depth + 1;
  for (const child of Object.values(value)) max = Math.max(max, depthOf(child, depth + 1));
  return max;
}

/**
 * A desktop thread's extension UI on the server side: what extensions show
 * (statuses, widgets, title, working message) kept as state and sent to the
 * thread's subscribers, within the limits; what only a terminal can draw
 * does nothing and says so once per method in the log.
 */
export class UiBridge implements ExtensionUI {
  private readonly statuses = new Map<string, string>();
  private readonly widgets: Widget[] = [];
  private title: string | undefined;
  private workingMessage: string | undefined;
  private workingVisible = true;
  private readonly refused = new Set<string>();
  private readonly loggedOnce = new Set<string>();
  private readonly viewHandlers = new Set<(event: { widgetKey: string; id: string; value?: string | boolean }) => void | Promise<void>>();

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

  confirm(title: string, message: string, opts?: DialogOptions): Promise<boolean> {
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
    if (!this.validKey("widget", key)) return;
    const at = this.widgets.findIndex((w) => w.key === key);
    if (content === undefined || content === null) {
      if (at === -1) return;
      this.widgets.splice(at, 1);
      this.options.send("ui/widget", { threadId: this.options.threadId, key });
      return;
    }
    const placement: WidgetPlacement = options.placement === "belowEditor" ? "belowEditor" : "aboveEditor";
    let widget: Widget;
    if (Array.isArray(content)) {
      widget = { key, placement, lines: content.map((line) => stripAnsi(String(line)).replace(/[\r\n]+/g, " ")) };
    } else {
      if (depthOf(content) > MAX_VIEW_DEPTH + 1) return this.refuse("widget", key, `views nest at most ${MAX_VIEW_DEPTH} levels`);
      widget = { key, placement, view: content };
    }
    let bytes: number;
    try {
      bytes = Buffer.byteLength(JSON.stringify("lines" in widget ? widget.lines : widget.view));
    } catch {
      return this.refuse("widget", key, "its content is not JSON");
    }
    if (bytes > MAX_WIDGET_BYTES) return this.refuse("widget", key, `widgets are limited to ${MAX_WIDGET_BYTES} bytes`);
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

  onViewEvent(handler: (event: { widgetKey: string; id: string; value?: string | boolean }) => void | Promise<void>): () => void {
    this.viewHandlers.add(handler);
    return () => this.viewHandlers.delete(handler);
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
    this.viewHandlers.clear();
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
