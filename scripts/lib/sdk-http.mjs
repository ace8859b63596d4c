import { replaceOnce, sdkModuleFilter, sdkRewritePlugin } from "./sdk-rewrite.mjs";

/**
 * The OpenAI and Anthropic SDKs send every request through the global
 * `fetch` unless a client is given another (pi-ai gives none), build its
 * headers in a global `Headers`, and test each body against the global
 * `FormData`. All three are undici's: the first touch of `Headers` or
 * `FormData` loads undici (with TLS, HTTP/2 and zlib), the first `fetch`
 * compiles its HTTP parser to WebAssembly, together about 15 MiB kept for
 * the life of a server that hosts every thread, where Node's own parser is
 * already loaded. In the bundle:
 *
 * - the SDKs' default `fetch` is our `modelFetch`
 *   (packages/agent/src/models/http-fetch.ts), on `node:http`; whatever it
 *   does not send itself, it hands to the global `fetch`;
 * - their headers are our `HeaderFields` (http-headers.ts), and a list of
 *   fields is told from a record without the global `Headers`;
 * - a form body is told by its tag, without the global `FormData`.
 *
 * Each rewrite is exact, as the splitter's is (scripts/lib/sse-chunks.mjs):
 * the build fails unless every site is there once, word for word.
 */
const WHY = "scripts/lib/sdk-http.mjs";

const FETCH_ERROR = (client) =>
  `    throw new Error('\`fetch\` is not defined as a global; Either pass \`fetch\` to the client, \`new ${client}({ fetch })\` or polyfill the global, \`globalThis.fetch = fetch\`');`;

/** Per module: what it imports of ours, and each site as written (openai 6.26.0, @anthropic-ai/sdk 0.91.1) with ours. */
export const REWRITES = [
  {
    module: "internal/shims.mjs",
    imports: 'import { modelFetch as KnightcodeModelFetch } from "@knightcode/agent/models/http-fetch";\n',
    sites: (sdk) => [
      {
        theirs: `export function getDefaultFetch() {
    if (typeof fetch !== 'undefined') {
        return fetch;
    }
${FETCH_ERROR(sdk === "openai" ? "OpenAI" : "Anthropic")}
}`,
        ours: `export function getDefaultFetch() {
    // Replaced at build time by ${WHY}.
    return KnightcodeModelFetch;
}`,
      },
    ],
  },
  {
    module: "internal/headers.mjs",
    imports: 'import { HeaderFields as KnightcodeHeaderFields } from "@knightcode/agent/models/http-headers";\n',
    sites: () => [
      { theirs: "if (headers instanceof Headers) {", ours: "if (KnightcodeHeaderFields.isFieldList(headers)) {" },
      { theirs: "const targetHeaders = new Headers();", ours: "const targetHeaders = new KnightcodeHeaderFields();" },
    ],
  },
  {
    module: "internal/utils/log.mjs",
    imports: 'import { HeaderFields as KnightcodeHeaderFields } from "@knightcode/agent/models/http-headers";\n',
    sites: () => [{ theirs: "(details.headers instanceof Headers ? ", ours: "(KnightcodeHeaderFields.isFieldList(details.headers) ? " }],
  },
  {
    module: "client.mjs",
    imports: 'import { isFormData as KnightcodeIsFormData } from "@knightcode/agent/models/http-fetch";\n',
    sites: () => [{ theirs: "body instanceof FormData ||", ours: "KnightcodeIsFormData(body) ||" }],
  },
];

/** Which SDK a module path is in. */
const sdkOf = (path) => (/[\\/]@anthropic-ai[\\/]/.test(path) ? "anthropic" : "openai");

/** `text` of `rewrite.module` with every site ours; throws when a site is not there exactly once. */
export function rewriteSdkModule(rewrite, text, path) {
  let rewritten = text;
  for (const [i, site] of rewrite.sites(sdkOf(path)).entries()) {
    rewritten = replaceOnce(rewritten, path, { ...site, preamble: i === 0 ? rewrite.imports : "", what: `"${site.theirs.split("\n")[0]}"`, why: WHY });
  }
  return rewritten;
}

/** The filter of each rewritten module, for the tests. */
export { sdkModuleFilter as moduleFilter };

export const sdkHttpPlugins = REWRITES.map((rewrite) =>
  sdkRewritePlugin({ name: `sdk-http:${rewrite.module}`, module: rewrite.module, rewrite: (text, path) => rewriteSdkModule(rewrite, text, path), why: WHY }),
);
