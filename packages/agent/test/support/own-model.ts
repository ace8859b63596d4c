import type { Api, Model } from "@mariozechner/pi-ai";
import { emptyUsage } from "../../src/models/provider-stream.js";

/** A model served by an extension's own stream function: no request ever leaves the process. */
export const ownModel: Model<Api> = {
  id: "m",
  name: "m",
  api: "own-api" as Api,
  provider: "own",
  baseUrl: "http://127.0.0.1:9/v1",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1000,
  maxTokens: 100,
};

/** The usage of a reply that used nothing. */
export const noUsage = emptyUsage();
