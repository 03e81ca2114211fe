import { describe, expect, test } from "bun:test";
import type { LoggedEvent } from "../../src/events/event-log.ts";
import { NoticeReader, pushPayload, questionBody, spoken, truncate } from "../../src/push/push-notices.ts";
import type { PendingQuestion } from "../../src/schemas/sessions.ts";

const event = (kind: string, payload: unknown, sessionId: string | null = "ses_1"): LoggedEvent =>
  ({ record: { kind, payload }, sessionId, addressedTo: null }) as unknown as LoggedEvent;

const question = (over: Partial<PendingQuestion> = {}): PendingQuestion => ({
  sessionUpdate: "question",
  questionId: "q_1",
  message: "Run the tests",
  questions: [
    {
      id: "permission",
      header: "Permission",
      question: "Run the tests",
      options: [],
      multiSelect: false,
      allowsOther: false,
      isSecret: false,
      backOptionLabel: null,
      presentation: "browserChoice",
    },
  ],
  autoResolutionMs: null,
  toolCall: null,
  ...over,
});

describe("push notices", () => {
  test("texts stay one line of at most 200 characters", () => {
    expect(truncate("a\n  b")).toBe("a b");
    const long = truncate("x".repeat(500));
    expect([...long]).toHaveLength(200);
    expect(long.endsWith("…")).toBe(true);
    expect(questionBody(question({ message: "é".repeat(300) })).length).toBe(200);
    expect(spoken(45_000)).toBe("45 s");
    expect(spoken(150_000)).toBe("3 min");
    expect(spoken(65 * 60_000)).toBe("1 h 5 min");
    expect(spoken(120 * 60_000)).toBe("2 h");
  });

  test("a permission says what for; a form its message", () => {
    expect(questionBody(question())).toBe("Run the tests — asks for permission");
    const form = question({ message: "Deploy settings", toolCall: undefined, questions: [{ ...question().questions[0]!, id: "target" }] });
    expect(questionBody(form)).toBe("Deploy settings");
    expect(questionBody(question({ message: "", toolCall: undefined, questions: [] }))).toBe("A question waits for your answer");
  });

  test("turns: long ones and failures are told, short, cancelled and interrupted ones are not; a plan only when it starts waiting", () => {
    let now = 0;
    const reader = new NoticeReader({ longTurnMs: 60_000, now: () => now });
    const completed = (stopReason: string) => event("session.message.completed", { item: { role: "assistant", stopReason }, textOmitted: false });
    const turn = (ms: number, stopReason: string) => {
      reader.read(event("session.prompt.started", { promptId: "p", itemId: "i" }));
      now += ms;
      return reader.read(completed(stopReason));
    };
    expect(turn(59_000, "end_turn")).toBeUndefined();
    expect(turn(61_000, "end_turn")).toEqual({ kind: "turn", sessionId: "ses_1", body: "Finished after 1 min" });
    expect(turn(600_000, "cancelled")).toBeUndefined();
    expect(turn(600_000, "interrupted")).toBeUndefined();
    expect(turn(1_000, "error")).toEqual({ kind: "failed", sessionId: "ses_1", body: "Ended in error" });
    // A turn this server did not see start (before a restart) counts as short.
    expect(reader.read(completed("end_turn"))).toBeUndefined();
    expect(reader.read(event("session.message.completed", { item: { role: "user", stopReason: null }, textOmitted: false }))).toBeUndefined();

    const updated = (pendingPlanApproval: boolean, changed = "t1") =>
      event("session.updated", { session: { pendingPlanApproval, sidebarState: "waiting", sidebarStateChangedAt: changed, updatedAt: "t1" } });
    expect(reader.read(updated(false))).toBeUndefined();
    expect(reader.read(updated(true))?.kind).toBe("plan");
    expect(reader.read(updated(true))).toBeUndefined();
    // A session first seen with a plan waiting since earlier is not told again.
    const fresh = new NoticeReader({ longTurnMs: 60_000, now: () => now });
    expect(fresh.read(updated(true, "t0"))).toBeUndefined();
    expect(reader.read(event("sync.changed", {}, null))).toBeUndefined();
  });

  test("the payload names the project and the session, and links to the session's page", () => {
    expect(
      pushPayload(
        { kind: "plan", sessionId: "ses_1", body: "A plan waits for your approval" },
        { projectId: "prj_1", projectName: "Demo", title: "Fix the port" },
      ),
    ).toEqual({
      kind: "plan",
      sessionId: "ses_1",
      projectId: "prj_1",
      title: "Demo · Fix the port",
      body: "A plan waits for your approval",
      url: "/#/sessions/ses_1",
      tag: "session-ses_1",
    });
  });
});
