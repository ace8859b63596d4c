import type { CommandInfo } from "@knightcode/app-server-protocol";
import { AppServerError } from "@knightcode/app-server-client/browser";
import { useEffect, useRef, useState } from "preact/hooks";
import { composer } from "./store.js";
import { reportError, toast } from "../../state/toasts.js";

/** What the text before the caret asks for: a file after `@`, or a command after a leading `/`. */
export interface Trigger {
  kind: "file" | "command";
  query: string;
  /** Where the trigger character is in the text. */
  start: number;
}

export interface Suggestion {
  key: string;
  label: string;
  detail?: string;
  /** What replaces the trigger and its query. */
  insert: string;
}

export function findTrigger(text: string, caret: number): Trigger | undefined {
  const before = text.slice(0, caret);
  const command = /^\/(\S*)$/.exec(before);
  if (command) return { kind: "command", query: command[1]!, start: 0 };
  const mention = /(?:^|\s)@(\S*)$/.exec(before);
  if (mention) return { kind: "file", query: mention[1]!, start: caret - mention[1]!.length - 1 };
  return undefined;
}

const SEARCH_DELAY_MS = 120;
/**
 * The popup shows this many at most, one line each, so it never scrolls: a
 * scrolling list whose options never take focus is out of keyboard reach
 * (focus stays in the textarea). Typing more narrows it.
 */
const SHOWN = 8;
/** Once the server says fd is missing, the page stops asking (and says so once). */
let fileSearchMissing = false;

/**
 * The suggestions for the current trigger: commands from command/list
 * (fetched once per composer), files from file/search (debounced, each
 * search superseding the last through its searchId).
 */
export function useSuggestions(threadId: string, cwd: string, trigger: Trigger | undefined): Suggestion[] {
  const [items, setItems] = useState<Suggestion[]>([]);
  const commands = useRef<Promise<CommandInfo[]> | undefined>(undefined);
  const kind = trigger?.kind;
  const query = trigger?.query;

  useEffect(() => {
    if (kind === undefined || query === undefined) {
      setItems([]);
      return;
    }
    let live = true;
    if (kind === "command") {
      commands.current ??= composer
        .commands(threadId)
        .then((r) => r.commands)
        .catch((error: unknown) => {
          commands.current = undefined;
          reportError(error, "Listing commands");
          return [];
        });
      void commands.current.then((list) => {
        if (!live) return;
        const q = query.toLowerCase();
        setItems(
          list
            .filter((c) => c.name.toLowerCase().includes(q))
            .sort((a, b) => Number(!a.name.toLowerCase().startsWith(q)) - Number(!b.name.toLowerCase().startsWith(q)))
            .slice(0, SHOWN)
            .map((c) => ({ key: c.name, label: `/${c.name}`, detail: c.description, insert: `/${c.name} ` })),
        );
      });
      return () => {
        live = false;
      };
    }
    if (fileSearchMissing) {
      setItems([]);
      return;
    }
    const timer = setTimeout(() => {
      composer.searchFiles(threadId, cwd, query, SHOWN).then(
        (r) => {
          if (live) setItems(r.files.map((f) => ({ key: f.path, label: f.path, insert: `@${f.path} ` })));
        },
        (error: unknown) => {
          if (error instanceof AppServerError && error.code === "toolMissing") {
            // Searches already in flight answer the same: only the first says so.
            if (!fileSearchMissing) toast(`File search is unavailable: ${error.message}. The text you type after @ is sent as it is.`, "warning");
            fileSearchMissing = true;
          } else reportError(error, "Searching files");
          if (live) setItems([]);
        },
      );
    }, SEARCH_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [kind, query, threadId, cwd]);
  return items;
}
