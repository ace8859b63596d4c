import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pkg = fileURLToPath(new URL("../..", import.meta.url));
const nodeOnly = (path: string) => isBuiltin(path) || /(^|\/)node_modules\/ws\//.test(path) || path.startsWith("node:");

describe("the page bundles no Node module", () => {
  test("the client's browser entry bundles for a browser with nothing stubbed and reaches no Node-only module", async () => {
    const entry = fileURLToPath(import.meta.resolve("@knightcode/app-server-client/browser"));
    // platform "browser" with no plugin: a Node builtin anywhere under the entry fails to resolve.
    const { metafile, errors } = await build({
      entryPoints: [entry],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    assert.deepEqual(errors, []);
    const inputs = Object.keys(metafile.inputs);
    assert.ok(inputs.some((path) => path.endsWith("app-server-client/dist/src/client.js")));
    const reached = inputs.filter((path) => nodeOnly(path) || /transports\/(stdio|websocket)\.js$|ready-file\.js$|\/local\//.test(path));
    assert.deepEqual(reached, []);
  });

  test("the built page took none of the client's Node transports, nor `ws`, nor a Node builtin", () => {
    const { inputs } = JSON.parse(readFileSync(`${pkg}/dist/page-inputs.json`, "utf8")) as { inputs: string[] };
    assert.ok(
      inputs.some((path) => path.includes("app-server-client/dist/src/browser.js")),
      "the page imports the browser entry",
    );
    assert.deepEqual(
      inputs.filter(
        (path) =>
          nodeOnly(path) ||
          path.includes("node-only") ||
          /app-server-client\/dist\/src\/(node-|ready-file|local\/|transports\/(stdio|websocket)\.js)/.test(path),
      ),
      [],
    );
  });
});
