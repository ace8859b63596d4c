export {
  ScriptedModelServer,
  type RecordedRequest,
  type Responder,
  type ScriptedError,
  type ScriptedReply,
  type ScriptedResponse,
} from "./scripted-model.js";
export { waitUntil } from "./wait.js";
