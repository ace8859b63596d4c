import type { JSX } from "preact";
import { useState } from "preact/hooks";
import type { McpExposure, McpServer } from "@knightcode/app-server-protocol";
import { reportError, toast } from "../../state/toasts.js";
import { Button } from "../../ui/button.js";
import { confirmAction } from "../../ui/modal.js";
import { useLoad } from "./load.js";
import { idOf, LoadGate, Section, Switch, Warnings } from "./parts.js";
import { settings, settingsCwd } from "./store.js";

/** The MCP servers a thread here would connect (mcp/list starts none), with enable, exposure, remove and add. */
export function McpTab(): JSX.Element {
  const cwd = settingsCwd.value;
  const loaded = useLoad(() => settings.readMcp(), [cwd]);

  const run = async (doing: string, request: () => Promise<unknown>, done?: string) => {
    try {
      await request();
      if (done) toast(done, "success");
    } catch (error) {
      reportError(error, doing);
    } finally {
      loaded.reload();
    }
  };
  const update = (server: McpServer, change: { enabled?: boolean; exposure?: McpExposure }) =>
    run(`Changing ${server.name}`, () => settings.updateMcp(server.name, change));
  const remove = async (server: McpServer) => {
    const yes = await confirmAction({
      title: `Remove ${server.name}?`,
      body: `Its entry is deleted from ${server.source}. Threads loaded later will not connect to it; threads already running keep it until they reload.`,
      confirm: "Remove",
      danger: true,
    });
    if (yes) await run(`Removing ${server.name}`, () => settings.removeMcp(server), `${server.name} removed`);
  };

  return (
    <>
      <Section title="MCP servers">
        <p class="settings-note">Changes apply to threads loaded afterwards; the list starts no server.</p>
        <LoadGate loaded={loaded} what="the MCP servers">
          {(answer) => (
            <>
              <Warnings warnings={answer.errors} title="Problems in mcp.json" />
              {answer.servers.length === 0 ? (
                <p class="settings-note">No MCP server is configured.</p>
              ) : (
                <ul class="settings-list" aria-label="MCP servers">
                  {answer.servers.map((server) => (
                    <ServerRow server={server} update={update} remove={remove} />
                  ))}
                </ul>
              )}
              <p class="settings-note">
                Global file: <code>{answer.paths.global}</code>
                {answer.paths.project && (
                  <>
                    ; project file: <code>{answer.paths.project}</code>
                  </>
                )}
              </p>
            </>
          )}
        </LoadGate>
      </Section>
      <AddServer cwd={cwd} onAdded={loaded.reload} />
    </>
  );
}

function ServerRow({
  server,
  update,
  remove,
}: {
  server: McpServer;
  update: (s: McpServer, change: { enabled?: boolean; exposure?: McpExposure }) => Promise<void>;
  remove: (s: McpServer) => Promise<void>;
}): JSX.Element {
  const id = `mcp-${idOf(server.name)}`;
  return (
    <li class="settings-row" data-mcp={server.name} data-enabled={String(server.enabled)}>
      <div class="settings-row-main">
        <div>
          <h3 class="settings-row-title">{server.name}</h3>
          <code class="settings-row-sub">{server.target}</code>
        </div>
        <span class="badge">{server.transport}</span>
        <span class="badge">{server.scope}</span>
        <span class={`badge ${server.enabled ? "settings-ok" : ""}`}>{server.enabled ? "enabled" : "disabled"}</span>
      </div>
      {server.description && <p class="settings-row-reason">{server.description}</p>}
      <div class="settings-row-meta">
        <Switch id={`${id}-enabled`} label={`Enable ${server.name}`} checked={server.enabled} onChange={(on) => void update(server, { enabled: on })} />
        <span class="settings-inline">
          <label for={`${id}-exposure`}>Exposure</label>
          <select id={`${id}-exposure`} value={server.exposure} onChange={(e) => void update(server, { exposure: e.currentTarget.value as McpExposure })}>
            <option value="direct">direct: each tool on its own</option>
            <option value="proxy">proxy: one mcp_{server.name} tool</option>
          </select>
        </span>
        <Button class="btn-small" variant="danger" aria-label={`Remove ${server.name}`} onClick={() => void remove(server)}>
          Remove
        </Button>
      </div>
      <p class="settings-row-sub">
        Defined in <code>{server.source}</code>
        {server.override && (
          <>
            , overridden by <code>{server.override}</code>
          </>
        )}
      </p>
    </li>
  );
}

/** Splits a command line on spaces, keeping "quoted parts" whole. */
function splitCommand(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function AddServer({ cwd, onAdded }: { cwd: string | undefined; onAdded: () => void }): JSX.Element {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"stdio" | "http">("stdio");
  const [target, setTarget] = useState("");
  const [scope, setScope] = useState<"global" | "project">("global");
  const submit = async (event: Event) => {
    event.preventDefault();
    const parts = splitCommand(target);
    const config = kind === "http" ? { url: target.trim() } : { command: parts[0] ?? "", args: parts.slice(1) };
    try {
      const { replaced } = await settings.addMcp(scope, name.trim(), config);
      toast(`${name.trim()} ${replaced ? "replaced" : "added"}`, "success");
      setName("");
      setTarget("");
      onAdded();
    } catch (error) {
      reportError(error, `Adding ${name.trim() || "the server"}`);
    }
  };
  return (
    <Section title="Add an MCP server">
      <form class="settings-form" onSubmit={submit}>
        <div class="field">
          <label for="mcp-add-name">Name</label>
          <input id="mcp-add-name" type="text" value={name} spellcheck={false} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="mcp-add-kind">Transport</label>
          <select id="mcp-add-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as "stdio" | "http")}>
            <option value="stdio">Command (stdio)</option>
            <option value="http">URL (http)</option>
          </select>
        </div>
        <div class="field">
          <label for="mcp-add-target">{kind === "http" ? "URL" : "Command line"}</label>
          <input id="mcp-add-target" type="text" value={target} spellcheck={false} onInput={(e) => setTarget(e.currentTarget.value)} />
        </div>
        {cwd !== undefined && (
          <div class="field">
            <label for="mcp-add-scope">Save in</label>
            <select id="mcp-add-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value as "global" | "project")}>
              <option value="global">Global mcp.json</option>
              <option value="project">Project mcp.json</option>
            </select>
          </div>
        )}
        <div class="settings-actions">
          <Button type="submit" variant="primary" disabled={!name.trim() || !target.trim()}>
            Add server
          </Button>
        </div>
      </form>
    </Section>
  );
}
