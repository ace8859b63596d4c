export * from "./errors.js";
export * from "./run.js";
export * from "./repo.js";
export * from "./changes.js";
export * from "./ops/index.js";
export * from "./commit-message.js";
export * from "./diff/index.js";
export * from "./hook-places.js";
