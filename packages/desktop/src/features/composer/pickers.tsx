import { signal } from "@preact/signals";
import type { ApprovalMode, ModelSummary, Thread, ThinkingLevel, ThreadSettingsUpdateParams } from "@knightcode/app-server-protocol";
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { patchThread } from "../../state/open-threads.js";
import { reportError } from "../../state/toasts.js";
import { refOf } from "./model-match.js";
import { ModelPicker } from "./model-picker.js";
import { composer } from "./store.js";

/** The server's models, shared by every composer; fetched when the first one shows. */
const models = signal<ModelSummary[] | undefined>(undefined);
let modelsLoad: Promise<void> | undefined;

function loadModels(): void {
  if (modelsLoad) return;
  modelsLoad = composer.listModels().then(
    (r) => {
      models.value = r.models;
    },
    (error: unknown) => {
      modelsLoad = undefined;
      reportError(error, "Listing models");
    },
  );
}

const LEVELS: ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];
const APPROVAL: { mode: ApprovalMode; label: string; hint: string }[] = [
  { mode: "ask", label: "Ask", hint: "tool calls that change things wait for your approval" },
  { mode: "autoEdit", label: "Auto-edit", hint: "file edits run without asking; other changes still ask" },
  { mode: "fullAccess", label: "Full access", hint: "nothing asks" },
];

/** Model, thinking level and approval mode of one thread, changed through thread/settings/update. */
export function Pickers({ thread, disabled }: { thread: Thread; disabled: boolean }): JSX.Element {
  useEffect(loadModels, []);
  const list = models.value ?? [];
  const current = thread.model ? refOf(thread.model) : "";
  const summary = list.find((m) => refOf(m) === current);
  // A model that says which levels it takes offers only those; otherwise every level.
  const levels = summary ? summary.thinkingLevels : LEVELS;
  const approval = APPROVAL.find((a) => a.mode === thread.approvalMode);

  const update = (change: Omit<ThreadSettingsUpdateParams, "threadId">, doing: string) => {
    composer.updateSettings(thread.id, change).then(
      (r) => patchThread(thread.id, { model: r.thread.model, thinkingLevel: r.thread.thinkingLevel, approvalMode: r.thread.approvalMode }),
      (error: unknown) => reportError(error, doing),
    );
  };

  return (
    <div class="composer-pickers">
      <ModelPicker
        id={`composer-model-${thread.id}`}
        models={models.value}
        current={current}
        disabled={disabled}
        onPick={(chosen) => update({ model: { provider: chosen.provider, id: chosen.id } }, "Changing the model")}
      />
      <div class="composer-picker">
        <label for={`composer-thinking-${thread.id}`}>Thinking</label>
        <select
          id={`composer-thinking-${thread.id}`}
          value={thread.thinkingLevel}
          disabled={disabled || levels.length < 2}
          onChange={(e) => update({ thinkingLevel: e.currentTarget.value as ThinkingLevel }, "Changing the thinking level")}
        >
          {(levels.includes(thread.thinkingLevel) ? levels : [thread.thinkingLevel, ...levels]).map((level) => (
            <option key={level} value={level}>
              {level}
            </option>
          ))}
        </select>
      </div>
      <div class="composer-picker" title={approval?.hint}>
        <label for={`composer-approval-${thread.id}`}>Approvals</label>
        <select
          id={`composer-approval-${thread.id}`}
          value={thread.approvalMode}
          disabled={disabled}
          aria-describedby={`approval-hint-${thread.id}`}
          onChange={(e) => update({ approvalMode: e.currentTarget.value as ApprovalMode }, "Changing the approval mode")}
        >
          {APPROVAL.map((a) => (
            <option key={a.mode} value={a.mode}>
              {a.label}
            </option>
          ))}
        </select>
      </div>
      <span id={`approval-hint-${thread.id}`} class="composer-hint">
        {approval ? `${approval.label}: ${approval.hint}.` : ""}
      </span>
    </div>
  );
}
