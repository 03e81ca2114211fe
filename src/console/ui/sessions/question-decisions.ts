import { useMemo } from "preact/hooks";
import type { PermissionAnswer, PermissionOptionKind, ToolCallDetails } from "../../../schemas/transcript.ts";

/** How the conversation says each choice beside its call. */
const DECISIONS: Record<PermissionOptionKind, string> = {
  allow_once: "Allowed once",
  reject_once: "Rejected",
  allow_always: "Always allowed",
  reject_always: "Always rejected",
};

function decisionOf(permission: PermissionAnswer): string {
  if (permission.outcome === "dismissed") return "Dismissed";
  if (permission.outcome === "cancelled") return "Not answered";
  return permission.kind ? DECISIONS[permission.kind] : "Answered";
}

/**
 * Answers this device gave before the server kept them on the call (`permission`), by session and tool
 * call: read only, so those older calls still say what was answered.
 */
const STORAGE_KEY = "atrium.decisions";

function storedDecision(sessionId: string, toolCallId: string): string | null {
  try {
    const decisions = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}") as Record<string, string>;
    return decisions[`${sessionId} ${toolCallId}`] ?? null;
  } catch {
    return null;
  }
}

/** What was answered to the permission question about this call: the server's record, else this device's. */
export function useDecision(sessionId: string, call: ToolCallDetails): string | null {
  const stored = useMemo(() => storedDecision(sessionId, call.toolCallId), [sessionId, call.toolCallId]);
  return call.permission ? decisionOf(call.permission) : stored;
}
