import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { AppServerError } from "@knightcode/app-server-client/browser";
import { Button } from "../../ui/button.js";
import { CopyButton } from "../../ui/copy-button.js";

/** git/push's refusal when there is no remote to push to (invalidParams, naming the remote it looked for). */
export function isNoRemote(error: unknown): boolean {
  return error instanceof AppServerError && error.code === "invalidParams" && /no remote named/.test(error.message);
}

/**
 * The Push button, and what the page offers when the push found no remote:
 * push to another remote by its name, or add one. The protocol has no method
 * that adds a remote, so that part is the git command to run, with the URL
 * the user types in it.
 */
export function PushBox({
  disabled,
  noRemote,
  onPush,
}: {
  disabled: boolean;
  /** The last push found no remote: show the advice until a push succeeds. */
  noRemote: boolean;
  onPush: (remote?: string) => void;
}): JSX.Element {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const command = `git remote add ${name.trim() || "origin"} ${url.trim() || "<url>"}`;
  return (
    <>
      <div class="ws-actions">
        <Button disabled={disabled} onClick={() => onPush()}>
          Push
        </Button>
      </div>
      {noRemote && (
        <div class="ws-remote-advice" role="region" aria-label="No remote to push to">
          <p>
            This branch has no upstream and the repository has no remote named <code>origin</code>. Name the remote to push to, or add one.
          </p>
          <form
            class="ws-inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              if (name.trim()) onPush(name.trim());
            }}
          >
            <label for="ws-remote-name">Remote name</label>
            <input id="ws-remote-name" type="text" value={name} placeholder="origin" onInput={(e) => setName(e.currentTarget.value)} />
            <Button type="submit" disabled={disabled || !name.trim()}>
              Push to this remote
            </Button>
          </form>
          <div class="field">
            <label for="ws-remote-url">Its URL, to add it</label>
            <input id="ws-remote-url" type="text" value={url} placeholder="git@github.com:you/project.git" onInput={(e) => setUrl(e.currentTarget.value)} />
          </div>
          <p class="ws-note">The server cannot add a remote for you. Run this in the thread's folder, then push again:</p>
          <div class="ws-command">
            <code aria-label="Command to add the remote">{command}</code>
            <CopyButton text={command} label="Copy the command" />
          </div>
        </div>
      )}
    </>
  );
}
