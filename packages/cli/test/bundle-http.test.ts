import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { ROOT, bundleText } from "./bundle-support.js";

const SDKS = ["openai", "@anthropic-ai/sdk"];

interface Site {
  theirs: string;
  ours: string;
}
interface Rewrite {
  module: string;
  imports: string;
  sites(sdk: "openai" | "anthropic"): Site[];
}
interface SdkHttp {
  REWRITES: Rewrite[];
  rewriteSdkModule(rewrite: Rewrite, text: string, path: string): string;
  moduleFilter(module: string): RegExp;
}
const sdkHttp = async () => (await import(pathToFileURL(join(ROOT, "scripts", "lib", "sdk-http.mjs")).href)) as SdkHttp;

describe("the bundled SDKs' HTTP: our transport and header fields", () => {
  test("each installed SDK's modules get ours at every site, and nothing else changes", async () => {
    const { REWRITES, rewriteSdkModule, moduleFilter } = await sdkHttp();
    assert.deepEqual(
      REWRITES.map((rewrite) => rewrite.module),
      ["internal/shims.mjs", "internal/headers.mjs", "internal/utils/log.mjs", "client.mjs"],
    );
    for (const sdk of SDKS) {
      for (const rewrite of REWRITES) {
        const path = join(ROOT, "node_modules", sdk, ...rewrite.module.split("/"));
        assert.match(path, moduleFilter(rewrite.module), `the plugin's filter takes ${sdk}'s ${rewrite.module}`);
        const before = readFileSync(path, "utf8");
        const after = rewriteSdkModule(rewrite, before, path);
        assert.ok(after.startsWith(rewrite.imports), `${sdk} ${rewrite.module}: our import first`);
        let restored = after.slice(rewrite.imports.length);
        for (const site of rewrite.sites(sdk === "openai" ? "openai" : "anthropic")) restored = restored.replace(site.ours, site.theirs);
        assert.equal(restored, before, `${sdk} ${rewrite.module}`);
      }
    }
  });

  test("a text it was not written for fails the build instead of passing unchanged", async () => {
    const { REWRITES, rewriteSdkModule } = await sdkHttp();
    const headers = REWRITES.find((rewrite) => rewrite.module === "internal/headers.mjs") as Rewrite;
    const [first, second] = headers.sites("openai") as [Site, Site];
    assert.match(rewriteSdkModule(headers, `${first.theirs}\n${second.theirs}`, "/x/headers.mjs"), /KnightcodeHeaderFields\.isFieldList/);
    assert.throws(() => rewriteSdkModule(headers, first.theirs, "/x/headers.mjs"), /\/x\/headers\.mjs: "const targetHeaders = new Headers\(\);" changed/);
    assert.throws(() => rewriteSdkModule(headers, `${first.theirs}${first.theirs}${second.theirs}`, "/x/headers.mjs"), /changed/, "twice");
  });

  test("the bundle the server runs sends both SDKs' requests through our transport, and names none of undici's globals at their sites", () => {
    const text = bundleText();
    const count = (pattern: RegExp) => text.match(pattern)?.length ?? 0;
    assert.equal(count(/function getDefaultFetch\(\)\{return modelFetch\}/g), 2, "both SDKs' default fetch is ours");
    assert.equal(count(/HeaderFields\.isFieldList\(headers\)/g), 2);
    assert.equal(count(/HeaderFields\.isFieldList\(details\.headers\)/g), 2);
    assert.equal(count(/targetHeaders=new HeaderFields\b/g), 2);
    assert.equal(count(/\|\|isFormData\(body\)\|\|/g), 2);
    for (const theirs of [/\bheaders instanceof Headers\b/, /targetHeaders=new Headers\b/, /body instanceof FormData\b/]) assert.doesNotMatch(text, theirs);
  });
});
