export {
  ScriptedModelServer,
  type RecordedRequest,
  type Responder,
  type ScriptedError,
  type ScriptedReply,
  type ScriptedResponse,
} from "./scripted-model.js";
export { held, waitUntil, waitUntilAsync } from "./wait.js";
export { GIT_TEST_ENV, armTraps, git, gitStatus, initRepo, repoAt, treeFiles, writeFiles, type TestRepo } from "./git-repos.js";
export { Random, seedFromEnv } from "./random.js";
export { NO_OTHER_USER, otherUser, type OtherUser } from "./other-user.js";
export { Impostor, type ImpostorOptions, type ImpostorRecord } from "./impostor.js";
export { hostProcesses } from "./processes.js";
