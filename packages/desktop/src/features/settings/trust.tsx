import type { JSX } from "preact";
import { reportError, toast } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { confirmAction } from "../../ui/modal.js";
import { useLoad } from "./load.js";
import { LoadGate, Section } from "./parts.js";
import { settings, settingsCwd } from "./store.js";

/** The project's trust decision (project/trust/read) and the way to change it, each change confirmed. */
export function TrustTab(): JSX.Element {
  const cwd = settingsCwd.value;
  if (cwd === undefined) {
    return (
      <Section title="Project trust">
        <p class="settings-note">Trust belongs to a project folder: choose one with Project above.</p>
      </Section>
    );
  }
  return <TrustOf key={cwd} cwd={cwd} />;
}

function TrustOf({ cwd }: { cwd: string }): JSX.Element {
  const loaded = useLoad(() => settings.readTrust(cwd), [cwd]);

  const decide = async (trusted: boolean) => {
    const yes = await confirmAction(
      trusted
        ? {
            title: "Trust this project?",
            body: `Threads loaded in ${cwd} from now on will load what its .knightcode folder holds: extensions run as code inside the server, MCP servers start their commands, environment scripts run for worktrees, and its settings, skills, prompts and themes apply. Only trust a project whose files you know. Threads already open keep what they loaded until they reload.`,
            confirm: "Trust project",
          }
        : {
            title: "Stop trusting this project?",
            body: `Threads loaded in ${cwd} from now on will skip its .knightcode extensions, MCP servers, environment scripts, settings, skills, prompts and themes, and its project settings cannot be written. Threads already open keep what they loaded until they reload.`,
            confirm: "Don't trust",
            danger: true,
          },
    );
    if (!yes) return;
    try {
      await settings.setTrust(cwd, trusted);
      toast(trusted ? "Project trusted" : "Project not trusted", "success");
    } catch (error) {
      reportError(error, trusted ? "Trusting the project" : "Withdrawing trust");
    } finally {
      loaded.reload();
    }
  };

  return (
    <Section title="Project trust">
      <p>
        Project <code>{cwd}</code>
      </p>
      <LoadGate loaded={loaded} what="the trust decision">
        {({ trusted, needsTrust }) => (
          <>
            <p class="settings-trust-state" data-trusted={String(trusted)} role="status">
              {trusted === true
                ? "Trusted: its project resources load."
                : trusted === false
                  ? "Not trusted: its project resources are skipped."
                  : "Undecided: its project resources are skipped until you decide."}
            </p>
            <p class="settings-note">
              {needsTrust
                ? "Its .knightcode folder holds settings, extensions, skills, prompts, themes, MCP servers or environments that wait for a decision."
                : "Its .knightcode folder holds nothing that waits for a decision."}
            </p>
            <div class="settings-actions">
              {trusted !== true && (
                <Button variant="primary" onClick={() => void decide(true)}>
                  Trust project…
                </Button>
              )}
              {trusted !== false && (
                <Button variant="danger" onClick={() => void decide(false)}>
                  {trusted === true ? "Withdraw trust…" : "Don't trust…"}
                </Button>
              )}
            </div>
          </>
        )}
      </LoadGate>
    </Section>
  );
}
