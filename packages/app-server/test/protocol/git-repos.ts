import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { repoAt, type ScriptedModelServer, type TestRepo } from "@knightcode/testkit";
import type { AppServerError } from "@knightcode/app-server-protocol";
import type { TestServer } from "../support/harness.js";

/** git for the tests' own commands: the server's HOME, no system config, so the machine's settings play no part. */
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
}

/** What a server for the git tests runs with: the same isolation. */
export const SERVER_GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1" };

export type Repo = TestRepo;

/** A repository in a new project folder of the server's home (or a bare one, for a remote). */
export function makeRepo(server: TestServer, options: { bare?: boolean; name?: string } = {}): Repo {
  return repoAt(realpathSync(server.project({}, options.name)), { env: gitEnv(server.home), ...(options.bare ? { bare: true } : {}) });
}

/** Awaits a request that must fail with `code`; answers the error's data. */
export async function failsWith(request: Promise<unknown>, code: string, reason?: string): Promise<Record<string, unknown>> {
  let caught: AppServerError | undefined;
  try {
    await request;
  } catch (error) {
    caught = error as AppServerError;
  }
  assert.ok(caught, `expected ${code}, but the request succeeded`);
  assert.equal(caught.code, code, caught.message);
  if (reason !== undefined) assert.equal(caught.data?.reason, reason, caught.message);
  return caught.data ?? {};
}

/** The scripted model's providers, plus `keyless`: the same models behind a provider with no credential. */
export function withKeylessProvider(model: ScriptedModelServer): { providers: Record<string, Record<string, unknown>> } {
  const modelsJson = model.modelsJson() as { providers: Record<string, Record<string, unknown>> };
  modelsJson.providers.keyless = { ...modelsJson.providers.scripted, apiKey: undefined };
  return modelsJson;
}

/** A repository whose first commit holds `files`, and a thread in it on `provider`'s scripted model. */
export async function committedRepoWithThread(
  server: TestServer,
  files: Record<string, string>,
  provider = "scripted",
): Promise<{ repo: Repo; threadId: string }> {
  const repo = makeRepo(server);
  repo.commit("base", files);
  const { thread } = await server.main.request("thread/start", { cwd: repo.root, model: { provider, id: "scripted-model" } });
  return { repo, threadId: thread.id };
}
