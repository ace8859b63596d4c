import type { ExtensionUI } from "./types.js";

/**
 * The UI of a thread nobody watches (tests, scripts, headless runs): every
 * question is answered "no answer" at once, everything shown is dropped, and
 * notices go to the log.
 */
export function silentUI(log: (line: string) => void = () => undefined): ExtensionUI {
  return {
    select: async () => undefined,
    confirm: async () => false,
    input: async () => undefined,
    editor: async () => undefined,
    notify: (message, level = "info") => log(`[${level}] ${message}`),
    setStatus: () => undefined,
    setWidget: () => undefined,
    setTitle: () => undefined,
    setWorkingMessage: () => undefined,
    setWorkingVisible: () => undefined,
    onViewEvent: () => () => undefined,
    custom: async () => undefined,
    setHeader: () => undefined,
    setFooter: () => undefined,
    setEditorText: () => undefined,
    getEditorText: () => "",
    pasteToEditor: () => undefined,
  };
}
