import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { writeStdioServer } from "../support/mcp-servers.js";
import { startServer, type TestServer } from "../support/harness.js";

let server: TestServer;
let scripts: string;
let globalFile: string;

before(async () => {
  server = await startServer();
  scripts = mkdtempSync(join(tmpdir(), "kc-mcp-files-"));
  globalFile = join(server.agentDir, "mcp.json");
});
after(async () => {
  await server.close();
  rmSync(scripts, { recursive: true, force: true });
});

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as { mcpServers: Record<string, Record<string, unknown>> };

/** The error a request answers; fails when it succeeds. */
async function refused(method: string, params: unknown): Promise<{ code: string; message: string; data?: Record<string, unknown> }> {
  const answer = await server.main.rawRequest(method, params);
  assert.ok(answer.error, `${method} ${JSON.stringify(params)} should fail, answered ${JSON.stringify(answer.result)}`);
  return answer.error;
}

async function trustedProject(files: Record<string, string> = {}): Promise<string> {
  const cwd = server.project(files);
  await server.main.request("project/trust/set", { cwd, trusted: true });
  return cwd;
}

describe("spec: mcp/list, mcp/add, mcp/update, mcp/remove", () => {
  test("add validates the entry, replaces by name and writes the file 0600; list shows command lines and URLs but no secret", async () => {
    const empty = await server.main.request("mcp/list", {});
    assert.deepEqual(empty, { servers: [], errors: [], paths: { global: globalFile } });

    const added = await server.main.request("mcp/add", {
      scope: "global",
      name: "local",
      config: { command: "node", args: ["server.mjs", "--name", "a b"], env: { SECRET_TOKEN: "env-secret-value" }, description: "A local server" },
    });
    assert.deepEqual(added, { replaced: false });
    assert.equal(statSync(globalFile).mode & 0o777, 0o600);
    await server.main.request("mcp/add", {
      scope: "global",
      name: "remote",
      config: {
        url: "https://user:pass-secret@example.com/mcp?token=query-secret&x=1#frag",
        headers: { Authorization: "Bearer header-secret" },
        exposure: "proxy",
      },
    });
    assert.deepEqual(
      await server.main.request("mcp/add", {
        scope: "global",
        name: "local",
        config: { command: "node", args: ["server.mjs", "--name", "a b"], env: { SECRET_TOKEN: "env-secret-value" }, description: "A local server" },
      }),
      { replaced: true },
    );

    const listed = await server.main.request("mcp/list", {});
    assert.deepEqual(listed.servers, [
      {
        name: "local",
        scope: "global",
        source: globalFile,
        transport: "stdio",
        target: 'node server.mjs --name "a b"',
        description: "A local server",
        enabled: true,
        exposure: "direct",
      },
      {
        name: "remote",
        scope: "global",
        source: globalFile,
        transport: "http",
        target: "https://user:***@example.com/mcp?token=***&x=***",
        enabled: true,
        exposure: "proxy",
      },
    ]);
    const text = JSON.stringify(listed);
    for (const secret of ["env-secret-value", "pass-secret", "query-secret", "header-secret"])
      assert.ok(!text.includes(secret), `mcp/list never shows ${secret}`);
    assert.equal(
      readJson(globalFile).mcpServers.local!.env && (readJson(globalFile).mcpServers.local!.env as Record<string, string>).SECRET_TOKEN,
      "env-secret-value",
      "the file keeps the value",
    );

    const bad: [unknown, RegExp][] = [
      [{}, /command .* or url/],
      [{ command: "node", url: "http://127.0.0.1/" }, /either command or url/],
      [{ command: "  " }, /command must not be empty/],
      [{ command: "node", args: "x" }, /args must be an array/],
      [{ command: "node", env: { A: 1 } }, /env\.A must be a string/],
      [{ command: "node", env: { "A=B": "x" } }, /not an environment variable name/],
      [{ command: "node", headers: {} }, /headers belongs to an http entry/],
      [{ url: "ftp://example.com/" }, /http or https/],
      [{ url: "not a url" }, /not a valid URL/],
      [{ url: "https://example.com/", headers: { "X-A": "a\r\nInjected: b" } }, /line break/],
      [{ url: "https://example.com/", enabled: "yes" }, /enabled must be true or false/],
      [{ url: "https://example.com/", exposure: "hidden" }, /exposure must be one of direct, proxy/],
      [{ url: "https://example.com/", colour: "red" }, /unknown field "colour"/],
      ["node server.mjs", /must be an object/],
    ];
    const before = readFileSync(globalFile);
    for (const [config, message] of bad) {
      const error = await refused("mcp/add", { scope: "global", name: "bad", config });
      assert.equal(error.code, "invalidParams", JSON.stringify(config));
      assert.match(error.message, message, JSON.stringify(config));
    }
    for (const name of ["", "-lead", "has space", "x".repeat(33), "../escape"]) {
      assert.equal((await refused("mcp/add", { scope: "global", name, config: { command: "node" } })).code, "invalidParams", `name ${JSON.stringify(name)}`);
    }
    assert.equal((await refused("mcp/add", { scope: "user", name: "x", config: { command: "node" } })).code, "invalidParams");
    assert.deepEqual(readFileSync(globalFile), before, "a refused add leaves the file byte for byte");

    assert.deepEqual(await server.main.request("mcp/remove", { scope: "global", name: "remote" }), { removed: true });
    assert.deepEqual(await server.main.request("mcp/remove", { scope: "global", name: "remote" }), { removed: false });
    assert.deepEqual(Object.keys(readJson(globalFile).mcpServers), ["local"]);
  });

  test("update changes enabled and exposure in the defining file; an unknown name or an empty change is invalidParams", async () => {
    await server.main.request("mcp/add", { scope: "global", name: "toggle", config: { url: "https://example.com/mcp" } });
    await server.main.request("mcp/update", { name: "toggle", enabled: false, exposure: "proxy" });
    assert.deepEqual(readJson(globalFile).mcpServers.toggle, { url: "https://example.com/mcp", enabled: false, exposure: "proxy" });
    const listed = (await server.main.request("mcp/list", {})).servers.find((s) => s.name === "toggle");
    assert.equal(listed?.enabled, false);
    assert.equal(listed?.exposure, "proxy");
    const unknown = await refused("mcp/update", { name: "nobody", enabled: true });
    assert.equal(unknown.code, "invalidParams");
    assert.match(unknown.message, /no MCP server named nobody/);
    assert.equal((await refused("mcp/update", { name: "toggle" })).code, "invalidParams");
    assert.equal((await refused("mcp/update", { name: "toggle", exposure: "hidden" })).code, "invalidParams");
  });

  test("project files: writes need cwd and an explicitly trusted project; auth only in the global file", async () => {
    const untrusted = server.project();
    for (const [method, params] of [
      ["mcp/add", { scope: "project", cwd: untrusted, name: "p", config: { command: "node" } }],
      ["mcp/remove", { scope: "project", cwd: untrusted, name: "p" }],
    ] as const) {
      const error = await refused(method, params);
      assert.equal(error.code, "invalidParams");
      assert.equal(error.data?.reason, "untrusted", method);
    }
    await server.main.request("project/trust/set", { cwd: untrusted, trusted: false });
    assert.equal(
      (await refused("mcp/add", { scope: "project", cwd: untrusted, name: "p", config: { command: "node" } })).data?.reason,
      "untrusted",
      "a project trusted false is refused too",
    );
    assert.equal(existsSync(join(untrusted, ".knightcode")), false, "nothing is created in an untrusted project");
    assert.equal((await refused("mcp/add", { scope: "project", name: "p", config: { command: "node" } })).code, "invalidParams", "a project write without cwd");
    assert.equal((await refused("mcp/list", { cwd: join(untrusted, "missing") })).code, "invalidParams", "a cwd that is not a directory");

    const cwd = await trustedProject();
    const auth = await refused("mcp/add", {
      scope: "project",
      cwd,
      name: "p",
      config: { url: "https://example.com/", auth: { bearerTokenEnv: "GITHUB_TOKEN" } },
    });
    assert.equal(auth.code, "invalidParams");
    assert.match(auth.message, /auth is allowed only in the global mcp\.json/);
    assert.deepEqual(
      await server.main.request("mcp/add", {
        scope: "global",
        name: "authed",
        config: { url: "https://example.com/", auth: { bearerTokenEnv: "GITHUB_TOKEN" } },
      }),
      { replaced: false },
    );
    assert.deepEqual(await server.main.request("mcp/add", { scope: "project", cwd, name: "p", config: { command: "node" } }), { replaced: false });
    const projectFile = join(cwd, ".knightcode", "mcp.json");
    assert.equal(statSync(projectFile).mode & 0o777, 0o600);
    const listed = await server.main.request("mcp/list", { cwd });
    assert.deepEqual(listed.paths, { global: globalFile, project: projectFile });
    assert.deepEqual(
      listed.servers.find((s) => s.name === "p"),
      { name: "p", scope: "project", source: projectFile, transport: "stdio", target: "node", enabled: true, exposure: "direct" },
    );
  });

  test("a trusted project entry with a global server's name overrides it: one listing entry naming the project file, and updates go there", async () => {
    await server.main.request("mcp/add", { scope: "global", name: "shared", config: { command: "global-server" } });
    await server.main.request("mcp/add", { scope: "global", name: "quiet", config: { command: "quiet-server" } });
    const cwd = await trustedProject({
      ".knightcode/mcp.json": JSON.stringify({ mcpServers: { shared: { command: "project-server", args: ["--x"] }, quiet: { enabled: false } } }),
    });
    const projectFile = join(cwd, ".knightcode", "mcp.json");
    const listed = await server.main.request("mcp/list", { cwd });
    assert.deepEqual(
      listed.servers.filter((s) => s.name === "shared" || s.name === "quiet"),
      [
        {
          name: "quiet",
          scope: "global",
          source: globalFile,
          override: projectFile,
          transport: "stdio",
          target: "quiet-server",
          enabled: false,
          exposure: "direct",
        },
        {
          name: "shared",
          scope: "global",
          source: globalFile,
          override: projectFile,
          transport: "stdio",
          target: "project-server --x",
          enabled: true,
          exposure: "direct",
        },
      ],
    );
    const globalBefore = readFileSync(globalFile);
    await server.main.request("mcp/update", { cwd, name: "shared", enabled: false });
    assert.deepEqual(readJson(projectFile).mcpServers.shared, { command: "project-server", args: ["--x"], enabled: false });
    assert.deepEqual(readFileSync(globalFile), globalBefore, "the global file is untouched");
    const other = server.project();
    assert.equal(
      (await server.main.request("mcp/list", { cwd: other })).servers.find((s) => s.name === "shared")?.target,
      "global-server",
      "another folder sees the global entry",
    );
  });

  test("an untrusted project's file is not read but named; bad entries are errors and the rest still list", async () => {
    await server.main.request("mcp/add", { scope: "global", name: "fine", config: { command: "fine-server" } });
    const cwd = server.project({ ".knightcode/mcp.json": JSON.stringify({ mcpServers: { sneaky: { command: "evil" } } }) });
    const listed = await server.main.request("mcp/list", { cwd });
    assert.equal(
      listed.servers.some((s) => s.name === "sneaky"),
      false,
    );
    assert.ok(
      listed.errors.some((e) => e.source === "trust" && e.path === join(cwd, ".knightcode", "mcp.json")),
      JSON.stringify(listed.errors),
    );

    const trusted = await trustedProject({
      ".knightcode/mcp.json": JSON.stringify({
        mcpServers: { broken: { command: "" }, "bad name": { command: "x" }, orphan: { enabled: false }, good: { command: "good-server" } },
      }),
    });
    const mixed = await server.main.request("mcp/list", { cwd: trusted });
    assert.ok(mixed.servers.some((s) => s.name === "good"));
    assert.ok(mixed.servers.some((s) => s.name === "fine"));
    const messages = mixed.errors.map((e) => e.message).join("\n");
    assert.match(messages, /server broken: command must not be empty/);
    assert.match(messages, /"bad name" must be/);
    assert.match(messages, /server orphan has neither command nor url and names no global server/);
  });

  test("a corrupt mcp.json is reported and never overwritten", async () => {
    const cwd = await trustedProject({ ".knightcode/mcp.json": "{ not json" });
    const projectFile = join(cwd, ".knightcode", "mcp.json");
    const listed = await server.main.request("mcp/list", { cwd });
    assert.ok(listed.errors.some((e) => e.path === projectFile && /not valid JSON/.test(e.message)));
    for (const [method, params] of [
      ["mcp/add", { scope: "project", cwd, name: "x", config: { command: "node" } }],
      ["mcp/remove", { scope: "project", cwd, name: "x" }],
    ] as const) {
      const error = await refused(method, params);
      assert.equal(error.code, "internal", method);
      assert.match(error.message, /never overwritten/);
    }
    assert.equal(readFileSync(projectFile, "utf8"), "{ not json");
    writeFileSync(projectFile, JSON.stringify({ mcpServers: [] }));
    assert.equal((await refused("mcp/add", { scope: "project", cwd, name: "x", config: { command: "node" } })).code, "internal");
    assert.equal(readFileSync(projectFile, "utf8"), JSON.stringify({ mcpServers: [] }));
  });

  test("listing starts no server: mcp/list and command/list leave a configured stdio server unstarted", async () => {
    const files = writeStdioServer(scripts, "never-started");
    await server.main.request("mcp/add", { scope: "global", name: "never", config: { command: process.execPath, args: [files.script] } });
    const cwd = server.project();
    mkdirSync(join(cwd, "sub"));
    await server.main.request("mcp/list", { cwd });
    await server.main.request("command/list", { cwd });
    assert.equal(existsSync(files.pidFile), false);
    await server.main.request("mcp/remove", { scope: "global", name: "never" });
  });

  test("params the schema refuses name the field", async () => {
    const empty = await refused("mcp/list", { cwd: "" });
    assert.equal(empty.code, "invalidParams");
    assert.match(empty.message, /cwd/);
    assert.equal((await refused("mcp/remove", { scope: "global" })).code, "invalidParams");
    assert.equal((await refused("mcp/update", { name: "x", enabled: true, extra: 1 })).code, "invalidParams");
  });
});
