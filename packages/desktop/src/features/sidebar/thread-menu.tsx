import type { ThreadSummary } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { FormDialog } from "../../ui/form-dialog.js";
import { MenuButton, type MenuItem } from "../../ui/menu-button.js";
import { archiveThread, forkThread, renameThread } from "./actions.js";
import { rows } from "./store.js";

/** The open thread's menu: rename, fork, archive. */
export function ThreadMenu({ threadId, title }: { threadId: string; title: string }): JSX.Element {
  const [renaming, setRenaming] = useState(false);
  const items: MenuItem[] = [
    { label: "Rename…", run: () => setRenaming(true) },
    { label: "Fork", run: () => void forkThread(threadId) },
    { label: "Archive…", run: () => void archiveThread(summaryOf(threadId, title)) },
  ];
  return (
    <div class="thread-menu">
      <MenuButton label="Thread actions" listId="thread-menu-list" items={items} />
      {renaming && <RenameDialog threadId={threadId} title={title} onClose={() => setRenaming(false)} />}
    </div>
  );
}

/** The sidebar's row for the thread, or one made from what the header knows (an open thread older than the loaded pages). */
function summaryOf(threadId: string, title: string): ThreadSummary {
  return rows.peek().find((row) => row.id === threadId) ?? ({ id: threadId, title } as ThreadSummary);
}

function RenameDialog({ threadId, title, onClose }: { threadId: string; title: string; onClose: () => void }): JSX.Element {
  const [name, setName] = useState(title);
  return (
    <FormDialog
      title="Rename thread"
      onClose={onClose}
      run={() => renameThread(threadId, name.trim())}
      canSubmit={!!name.trim()}
      submitLabel="Rename"
      busyLabel="Renaming…"
    >
      <div class="field">
        <label for="rename-thread-name">Name</label>
        <input id="rename-thread-name" type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} required autocomplete="off" autofocus />
      </div>
    </FormDialog>
  );
}
