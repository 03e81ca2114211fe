import type { StoredSession } from "../store/session-repository.ts";
import { EMPTY_USAGE } from "./acp-mapping.ts";

/** What a new session is made of; everything else starts empty. */
export type NewSessionFields = Pick<
  StoredSession,
  | "id"
  | "projectId"
  | "harnessId"
  | "harnessAccountId"
  | "title"
  | "titleSource"
  | "worktreeId"
  | "worktreeName"
  | "workspaceId"
  | "cwd"
  | "parentSessionId"
  | "labels"
> & {
  /** Set on the agent when it starts (those it refuses stay in unavailableConfigSelections). */
  selections: Record<string, string>;
  now: string;
};

/** A session that has not run yet: idle, no agent session, no usage, nothing pending. */
export function newStoredSession({ selections, now, ...fields }: NewSessionFields): StoredSession {
  return {
    ...fields,
    agentSessionId: null,
    configSelections: {},
    unavailableConfigSelections: { ...selections },
    configOptions: [],
    createdAt: now,
    updatedAt: now,
    sidebarState: "idle",
    sidebarStateChangedAt: now,
    usage: EMPTY_USAGE,
    latestAttentionSequence: 0,
    lastSeenAttentionSequence: 0,
    lastErrorAttentionSequence: 0,
    pendingQuestion: null,
    pendingPlanApproval: false,
    plan: null,
    goal: null,
    status: null,
    queuePaused: false,
  };
}
