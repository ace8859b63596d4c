export * from "./errors.js";
export * from "./run.js";
export * from "./repo.js";
export * from "./diff/index.js";
