/**
 * The environment variables pi-ai reads providers' credentials from (its
 * `getEnvApiKey`), besides any `*_API_KEY`. They are the server's to use and
 * never passed to a child process. A test holds this list to pi-ai's own.
 */
export const PROVIDER_KEY_ENV_NAMES = [
  "ANTHROPIC_OAUTH_TOKEN",
  "COPILOT_GITHUB_TOKEN",
  "GH_TOKEN",
  "GITHUB_TOKEN",
  "HF_TOKEN",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_BEARER_TOKEN_BEDROCK",
] as const;

/**
 * What pi-ai also reads, which is not a secret: where credentials are, or
 * which project and profile to use. Children keep these.
 */
export const PROVIDER_NON_SECRET_ENV_NAMES = [
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GOOGLE_CLOUD_PROJECT",
  "GCLOUD_PROJECT",
  "GOOGLE_CLOUD_LOCATION",
  "AWS_PROFILE",
  "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
  "AWS_CONTAINER_CREDENTIALS_FULL_URI",
  "AWS_WEB_IDENTITY_TOKEN_FILE",
] as const;

/**
 * Providers whose key variable is not `<PROVIDER>_API_KEY`; null for one
 * that takes no key from the environment (an OAuth login only). A test
 * holds these to pi-ai's own lookup.
 */
const KEY_ENV_EXCEPTIONS: Record<string, string | null> = {
  google: "GEMINI_API_KEY",
  "google-vertex": "GOOGLE_CLOUD_API_KEY",
  "github-copilot": "COPILOT_GITHUB_TOKEN",
  huggingface: "HF_TOKEN",
  "vercel-ai-gateway": "AI_GATEWAY_API_KEY",
  moonshotai: "MOONSHOT_API_KEY",
  "moonshotai-cn": "MOONSHOT_API_KEY",
  "azure-openai-responses": "AZURE_OPENAI_API_KEY",
  "cloudflare-ai-gateway": "CLOUDFLARE_API_KEY",
  "cloudflare-workers-ai": "CLOUDFLARE_API_KEY",
  "kimi-coding": "KIMI_API_KEY",
  "opencode-go": "OPENCODE_API_KEY",
  "amazon-bedrock": "AWS_BEARER_TOKEN_BEDROCK",
  "openai-codex": null,
};

/** The environment variable a built-in provider's key is read from, for messages; undefined when there is none. */
export function keyEnvHint(provider: string): string | undefined {
  if (Object.hasOwn(KEY_ENV_EXCEPTIONS, provider)) return KEY_ENV_EXCEPTIONS[provider] ?? undefined;
  return `${provider.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_API_KEY`;
}
