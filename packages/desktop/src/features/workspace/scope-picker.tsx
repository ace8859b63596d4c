import type { JSX } from "preact";
import type { DiffScope, GitLogResult } from "@knightcode/app-server-protocol";
import { Button } from "../../ui/button.js";

const SCOPES: { value: DiffScope; label: string }[] = [
  { value: "uncommitted", label: "Uncommitted (staged and not)" },
  { value: "unstaged", label: "Unstaged" },
  { value: "staged", label: "Staged" },
  { value: "committed", label: "A commit on this branch" },
  { value: "branch", label: "The whole branch" },
  { value: "lastTurn", label: "The last turn" },
];

/** Which changes the diff view shows: the scope, and the commit or base ref a scope needs. */
export function ScopePicker(props: {
  scope: DiffScope;
  onScope: (scope: DiffScope) => void;
  commits: GitLogResult["commits"] | undefined;
  commit: string;
  onCommit: (sha: string) => void;
  against: string;
  onAgainst: (ref: string) => void;
  loading: boolean;
  onRefresh: () => void;
}): JSX.Element {
  const { scope, onScope, commits, commit, onCommit, against, onAgainst, loading, onRefresh } = props;
  return (
    <div class="ws-toolbar">
      <label class="ws-inline-field" for="ws-scope">
        Show
      </label>
      <select id="ws-scope" value={scope} onChange={(e) => onScope(e.currentTarget.value as DiffScope)}>
        {SCOPES.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </select>
      {scope === "committed" && commits && commits.length > 0 && (
        <>
          <label class="ws-inline-field" for="ws-commit">
            Commit
          </label>
          <select id="ws-commit" value={commit} onChange={(e) => onCommit(e.currentTarget.value)}>
            {commits.map((c) => (
              <option key={c.sha} value={c.sha}>
                {c.sha.slice(0, 7)} {c.subject}
              </option>
            ))}
          </select>
        </>
      )}
      {scope === "branch" && (
        <>
          <label class="ws-inline-field" for="ws-against">
            Against
          </label>
          <input
            id="ws-against"
            type="text"
            value={against}
            placeholder="upstream or default branch"
            onChange={(e) => onAgainst(e.currentTarget.value.trim())}
          />
        </>
      )}
      <Button variant="ghost" icon="refresh" disabled={loading} onClick={onRefresh}>
        Refresh
      </Button>
    </div>
  );
}
