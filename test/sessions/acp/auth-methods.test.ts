import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { chooseAuthMethod } from "../../../src/sessions/acp/auth-methods.ts";
import { gemini } from "../../../src/harness/definitions/gemini.ts";
import { qwen } from "../../../src/harness/definitions/qwen.ts";
import { readJson } from "../../../src/harness/detection.ts";
import type { HarnessDefinition } from "../../../src/harness/harness-definition.ts";
import { makeTempDir } from "../../helpers/temp-dir.ts";

// The sign-ins the real agents offer in `initialize` (gemini-cli 0.61.0, codex-acp 0.16.0, qwen-code 0.15.10).
const GEMINI: acp.AuthMethod[] = [
  { id: "oauth-personal", name: "Log in with Google" },
  { id: "gemini-api-key", name: "Gemini API key", _meta: { "api-key": { provider: "google" } } },
  { id: "vertex-ai", name: "Vertex AI" },
  { id: "gateway", name: "AI API Gateway" },
];
const CODEX = [
  { id: "chatgpt", name: "Login with ChatGPT" },
  { type: "env_var", id: "codex-api-key", name: "Use CODEX_API_KEY", vars: [{ name: "CODEX_API_KEY" }] },
  { type: "env_var", id: "openai-api-key", name: "Use OPENAI_API_KEY", vars: [{ name: "OPENAI_API_KEY" }] },
] as unknown as acp.AuthMethod[];
const QWEN: acp.AuthMethod[] = [
  { id: "openai", name: "Use OpenAI API key", _meta: { type: "terminal", args: ["--auth-type=openai"] } },
  { id: "qwen-oauth", name: "Qwen OAuth", _meta: { type: "terminal", args: ["--auth-type=qwen-oauth"] } },
];

function choose(offered: acp.AuthMethod[], env: Record<string, string>, definition?: HarnessDefinition, home = "/nonexistent"): string | undefined {
  return chooseAuthMethod(offered, env, (ids) => definition?.acpAuthMethod?.(ids, { env, home, readJson }));
}

test("an env_var method is chosen when all its variables are set, whatever the harness", () => {
  expect(choose(CODEX, { CODEX_API_KEY: "k" })).toBe("codex-api-key");
  expect(choose(CODEX, { OPENAI_API_KEY: "k" })).toBe("openai-api-key");
  // Signed in with `codex login`: nothing to send, the agent reads its own auth.json.
  expect(choose(CODEX, {})).toBeUndefined();
});

test("Gemini: its API key, else Vertex, else the sign-in chosen in its own settings", () => {
  expect(choose(GEMINI, { GEMINI_API_KEY: "k" }, gemini)).toBe("gemini-api-key");
  expect(choose(GEMINI, { GOOGLE_API_KEY: "k", GOOGLE_GENAI_USE_VERTEXAI: "true" }, gemini)).toBe("vertex-ai");
  expect(choose(GEMINI, {}, gemini)).toBeUndefined();
  const home = makeTempDir("atrium-gemini-home-");
  try {
    mkdirSync(join(home.path, ".gemini"));
    writeFileSync(join(home.path, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "oauth-personal" } } }));
    expect(choose(GEMINI, {}, gemini, home.path)).toBe("oauth-personal");
  } finally {
    home.remove();
  }
});

test("Qwen: OPENAI_API_KEY picks `openai` (its methods carry terminal hints only in _meta, and it accepts them)", () => {
  expect(choose(QWEN, { OPENAI_API_KEY: "k" }, qwen)).toBe("openai");
  expect(choose(QWEN, {}, qwen)).toBeUndefined();
});

test("a method of type terminal is never sent, even when the harness would choose it", () => {
  const terminal = [{ type: "terminal", id: "login", name: "Log in in a terminal" }] as acp.AuthMethod[];
  expect(chooseAuthMethod(terminal, {}, () => "login")).toBeUndefined();
});
