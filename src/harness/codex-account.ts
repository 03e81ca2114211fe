import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Who a Codex config home is logged in as, from the claims of its ChatGPT login. */
export interface CodexAccount {
  email: string | null;
  /** The ChatGPT plan, as Codex's backend spells it (`plus`, `pro`, `team`, …). */
  plan: string | null;
}

/** The claim namespaces OpenAI puts in the id token Codex stores (see codex-rs token_data.rs). */
const AUTH_CLAIM = "https://api.openai.com/auth";
const PROFILE_CLAIM = "https://api.openai.com/profile";

/**
 * Reads the email and plan of the ChatGPT login in `$CODEX_HOME/auth.json`. Only the payload of the
 * id token is decoded, never verified or logged: these are labels for display, not proof of anything.
 * Undefined when there is no ChatGPT login in the file (logged out, API key, or kept in the keyring).
 */
export function readCodexAccount(codexHome: string): CodexAccount | undefined {
  const idToken = readIdToken(join(codexHome, "auth.json"));
  const claims = idToken === undefined ? undefined : jwtPayload(idToken);
  if (!claims) return undefined;
  const auth = asRecord(claims[AUTH_CLAIM]);
  const profile = asRecord(claims[PROFILE_CLAIM]);
  return {
    email: nonEmptyString(claims.email) ?? nonEmptyString(profile?.email) ?? null,
    plan: nonEmptyString(auth?.chatgpt_plan_type) ?? null,
  };
}

function readIdToken(authPath: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(authPath, "utf8"));
  } catch {
    return undefined;
  }
  return nonEmptyString(asRecord(asRecord(parsed)?.tokens)?.id_token);
}

/** The middle, base64url part of a JWT as an object; anything else is not a token we can read. */
function jwtPayload(token: string): Record<string, unknown> | undefined {
  const payload = token.split(".")[1];
  if (!payload) return undefined;
  try {
    return asRecord(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  } catch {
    return undefined;
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
