import { strict as assert } from "node:assert";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
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

describe("what the page loads at first and on demand", () => {
  const page = `${pkg}/dist/page`;
  const loads = () => JSON.parse(readFileSync(`${pkg}/dist/page-inputs.json`, "utf8")) as { firstLoad: string[]; onDemand: string[] };
  const gzipped = (file: string) =>
    file.endsWith(".woff2") ? statSync(`${page}/${file}`).size : gzipSync(readFileSync(`${page}/${file}`), { level: 9 }).length;
  const files = (dir = page): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(`${dir}/${entry.name}`) : [`${dir}/${entry.name}`.slice(page.length + 1)],
    );

  test("the terminal emulator is a chunk of its own, which app.js does not import statically", () => {
    const { firstLoad, onDemand } = loads();
    assert.ok(firstLoad.includes("app.js") && firstLoad.includes("app.css"));
    assert.ok(onDemand.includes("xterm.css"), "xterm's stylesheet is linked when a terminal opens");
    const emulator = onDemand.filter((file) => /^chunks\/emulator-\w+\.js$/.test(file));
    assert.equal(emulator.length, 1, `one emulator chunk among ${onDemand.join(", ")}`);
    const first = firstLoad.filter((file) => file.endsWith(".js")).map((file) => readFileSync(`${page}/${file}`, "utf8"));
    assert.ok(
      first.every((text) => !text.includes("xterm-helper-textarea")),
      "xterm's code is not in what loads at first",
    );
    assert.ok(readFileSync(`${page}/${emulator[0]}`, "utf8").includes("xterm-helper-textarea"));
    for (const text of first) {
      for (const [, path] of text.matchAll(/\bimport\s*(?:[\w${}\s,*]+from\s*)?["'](\.\/[^"']+)["']/g)) {
        assert.ok(
          firstLoad.includes(path!.replace(/^\.\//, "").replace(/^(?!chunks\/)/, "chunks/")),
          `${path} is statically imported, so counted at first load`,
        );
      }
    }
  });

  test("what loads at first stays under 250 KiB gzipped, what loads on demand under 150 KiB", () => {
    const { onDemand } = loads();
    const all = files().filter((file) => !file.endsWith(".map"));
    assert.ok(onDemand.every((file) => all.includes(file)));
    const sum = (list: string[]) => list.reduce((total, file) => total + gzipped(file), 0);
    const first = sum(all.filter((file) => !onDemand.includes(file)));
    const later = sum(onDemand);
    assert.ok(first <= 250 * 1024, `first load: ${first} bytes gzipped`);
    assert.ok(later <= 150 * 1024, `on demand: ${later} bytes gzipped`);
  });
});
