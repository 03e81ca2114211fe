/** ACP's error code for "authentication required". */
export const ACP_AUTH_REQUIRED = -32000;

/** Past this many characters, what an agent put in an error's `data` is cut. */
const DATA_TEXT_LIMIT = 500;

/**
 * An agent's error as one sentence: its message and the reason it put in `data` (Codex sends
 * "Internal error" with `data.message`, Qwen with `data.details`); the code alone says little.
 */
export function describeAgentError(error: unknown): string {
  const message = unwrapped(error instanceof Error ? error.message : String(error));
  const detail = dataText((error as { data?: unknown } | undefined)?.data);
  if (!detail || message.includes(detail)) return message;
  return `${message}: ${detail}`;
}

/**
 * A model provider's JSON error body passed on as the message (Gemini CLI passes the body verbatim,
 * codex-acp puts it after "Internal error: "): its own message, else the text as it is.
 */
function unwrapped(text: string): string {
  const start = text.indexOf("{");
  if (start === -1 || !text.trimEnd().endsWith("}")) return text;
  try {
    const body = JSON.parse(text.slice(start)) as { error?: { message?: unknown } | string; message?: unknown };
    const inner = typeof body.error === "string" ? body.error : (body.error?.message ?? body.message);
    return typeof inner === "string" && inner.trim() ? `${text.slice(0, start)}${inner.trim()}` : text;
  } catch {
    return text;
  }
}

/** The reason an error's `data` carries, from the fields agents use for it, else the data itself. */
function dataText(data: unknown): string | undefined {
  if (data === undefined || data === null) return undefined;
  if (typeof data === "string") return cut(unwrapped(data));
  if (typeof data !== "object") return cut(String(data));
  const record = data as Record<string, unknown>;
  for (const key of ["message", "details", "detail", "error", "reason"]) {
    const value = record[key];
    if (typeof value === "string" && value.trim().length > 0) return cut(unwrapped(value.trim()));
  }
  // Only bookkeeping (error kinds, method ids, lists of sign-ins) is left: nothing for a person to read.
  return undefined;
}

function cut(text: string): string {
  return text.length > DATA_TEXT_LIMIT ? `${text.slice(0, DATA_TEXT_LIMIT)}…` : text;
}
