import { anthropicApi } from "./anthropic.ts";
import { chatApi } from "./chat.ts";
import { geminiApi } from "./gemini.ts";
import { responsesApi } from "./responses.ts";
import { startScriptedProvider, type ScriptedProvider } from "./scripted-provider.ts";

export { PROVIDER_MARKER, type ScriptedProvider } from "./scripted-provider.ts";
export type { Part, RecordedRequest, ScriptedResponse, ToolUse } from "./script.ts";

/** The scripted provider with every vendor API the suite's agents call. */
export function startProvider(): ScriptedProvider {
  return startScriptedProvider([anthropicApi, responsesApi, chatApi, geminiApi]);
}
