import { useEffect, useState } from "preact/hooks";
import type { SessionDetail } from "../../../schemas/sessions.ts";
import { api, ApiError } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { readRetrying } from "../shared/retrying-read.ts";
import { Composer } from "./composer.tsx";
import { Conversation } from "./conversation.tsx";
import { type StreamedEvent, subscribe } from "../shared/event-stream.ts";
import { GoalPanel } from "./goal-panel.tsx";
import { ChangesPanel } from "../git/changes-panel.tsx";
import { SchedulesPanel } from "../composer/schedules-panel.tsx";
import { PromptQueue } from "./prompt-queue.tsx";
import { QuestionForm } from "./question-form.tsx";
import { ConfigPanel, PlanPanel, TasksPanel, UsagePanel } from "./session-panels.tsx";
import { PageHeading } from "../shell/page-heading.tsx";
import { filesHref, pageHref, terminalHref } from "../shell/router.ts";
import { finishedReply, replyFinishedSentence } from "./reply-end.ts";
import { applySessionEvent, STANDING_LABELS, standingOf } from "./session-state.ts";
import { useFollowBottom } from "./use-follow-bottom.ts";
import { useOpenAt } from "./use-open-at.ts";
import { SessionActions } from "./session-actions.tsx";
import { ContinueWith } from "./fork-actions.tsx";
import { MovedNotice, MoveTo } from "./move-to.tsx";
import { type SessionTab, SessionTabs, sessionTabs, tabPanel, useTabbed } from "./session-tabs.tsx";
import { useQuestionInReach } from "./use-question-in-reach.ts";
import { forgetDetailsAhead, readDetailsAhead } from "./use-reply-details.ts";
import { NEWEST_READ_AT_ONCE } from "./conversation.tsx";
import { Alert, useAction } from "../shared/use-action.tsx";

/** How many times each reply's details changed since the page opened: an open details list reads them again. */
function countDetailChanges(current: ReadonlyMap<string, number>, events: StreamedEvent[]): ReadonlyMap<string, number> {
  const changed = events.filter((event) => event.kind === "session.transcript");
  if (changed.length === 0) return current;
  const next = new Map(current);
  for (const event of changed) {
    const { itemId } = event.payload as { itemId: string };
    next.set(itemId, (next.get(itemId) ?? 0) + 1);
  }
  return next;
}

/** The last reply that ended while the page was open: said once in the page's polite live region. */
interface EndedReply {
  stopReason: string | null;
  /** Counts the ends, so a second end said in the same words is a new node, and is said again. */
  count: number;
}

/**
 * One session, live: the detail is read once, then moved forward by the session's events after its
 * `eventCursor`. A dropped stream reopens with `Last-Event-ID`, so nothing is missed or doubled.
 */
export function SessionPage({ sessionId, openAt }: { sessionId: string; openAt?: string }) {
  const [detail, setDetail] = useState<SessionDetail | null>(null);
  const [deleted, setDeleted] = useState(false);
  const [detailChanges, setDetailChanges] = useState<ReadonlyMap<string, number>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [streamProblem, setStreamProblem] = useState<string | null>(null);
  const [ended, setEnded] = useState<EndedReply | null>(null);
  const [tab, setTab] = useState<SessionTab>("conversation");
  const [managing, setManaging] = useState(false);
  const tabbed = useTabbed();
  const action = useAction();
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;

  useEffect(() => {
    let stop = () => {};
    const life = new AbortController();
    // Tried again until the server answers: a page opened while it was down comes back by itself.
    readRetrying(
      () => api<SessionDetail>("GET", path),
      life.signal,
      (failure) => setError(failureText(failure)),
    ).then(
      (read) => {
        setError(null);
        const replies = read.conversation.filter((item) => item.role === "assistant");
        readDetailsAhead(
          sessionId,
          replies.slice(-NEWEST_READ_AT_ONCE).map((item) => item.id),
        );
        setDetail(read);
        stop = subscribe({
          sessionId,
          after: read.eventCursor,
          byFrame: true,
          onEvents(events) {
            setDetail((current) => current && events.reduce(applySessionEvent, current));
            setDetailChanges((current) => countDetailChanges(current, events));
            if (events.some((event) => event.kind === "session.deleted")) setDeleted(true);
            const reply = finishedReply(events);
            if (reply) setEnded((last) => ({ stopReason: reply.stopReason, count: (last?.count ?? 0) + 1 }));
          },
          onProblem: setStreamProblem,
        });
      },
      (failure) =>
        life.signal.aborted ||
        setError(failure instanceof ApiError && failure.status === 404 ? "There is no such session (it may have been deleted)." : failureText(failure)),
    );
    return () => {
      life.abort();
      stop();
      forgetDetailsAhead();
    };
  }, [sessionId]);

  const loadEarlier = async () => {
    if (!detail?.nextBefore) return;
    // A failure is the button's to say (conversation.tsx), with a second try.
    const earlier = await api<SessionDetail>("GET", `${path}?before=${detail.nextBefore}`);
    setDetail(
      (current) =>
        current && { ...current, conversation: [...earlier.conversation, ...current.conversation], hasMore: earlier.hasMore, nextBefore: earlier.nextBefore },
    );
  };

  const tabs = detail ? sessionTabs(detail) : [];
  // Where the side column shows the other parts there are no tabs: the conversation is the one shown.
  const current = tabbed && tabs.includes(tab) ? tab : "conversation";
  const shownTab = tabbed ? current : null;
  const follow = useFollowBottom(detail, current === "conversation");
  const foundItem = useOpenAt(openAt, detail, loadEarlier, follow.holdAt);
  const question = useQuestionInReach(detail?.pendingQuestion?.questionId ?? null, current, () => setTab("conversation"), follow);

  // The session is read here: what needed attention has been seen.
  const latest = detail?.session.latestAttentionSequence ?? 0;
  const seen = detail?.session.lastSeenAttentionSequence ?? 0;
  useEffect(() => {
    if (latest > seen && document.visibilityState === "visible") void api("PATCH", path, { lastSeenAttentionSequence: latest }).catch(() => {});
  }, [latest, seen]);

  if (error) return <Alert error={error} />;
  if (!detail) return <p class="quiet">Loading…</p>;
  const { session } = detail;
  const standing = standingOf(session);
  return (
    <section class="session-page" aria-label={session.title}>
      <header class="session-header">
        <a href={pageHref("sessions")} class="back">
          ← Sessions
        </a>
        <PageHeading text={session.title} />
        <span class={`standing ${standing}`}>{STANDING_LABELS[standing]}</span>
        {session.archivedAt !== null && <span class="standing">Archived</span>}
        {/* Together, so they wrap as one on a phone rather than one of them alone on a row. */}
        <span class="place-links">
          <a class="terminal-link" href={terminalHref("session", sessionId)}>
            Terminal
          </a>
          <a class="terminal-link" href={filesHref("session", sessionId)}>
            Files
          </a>
        </span>
        {session.sidebarState === "working" && (
          <button type="button" class="quiet-button small" disabled={action.busy} onClick={() => action.run(() => api("POST", `${path}/cancel`))}>
            Cancel turn
          </button>
        )}
      </header>
      <details class="session-manage" onToggle={(event) => setManaging(event.currentTarget.open)}>
        <summary>Manage</summary>
        <SessionActions
          session={session}
          onDeleted={() => {
            location.hash = pageHref("sessions");
          }}
        />
        {/* Read when opened: the page reads only what it shows. */}
        {managing && <ContinueWith session={session} />}
        {managing && <MoveTo session={session} />}
      </details>
      {deleted && <p class="error">This session was deleted.</p>}
      <Alert error={streamProblem} />
      <p class="visually-hidden" aria-live="polite">
        {ended && <span key={ended.count}>{replyFinishedSentence(session.title, ended.stopReason)}</span>}
      </p>
      {session.move && <MovedNotice move={session.move} />}
      {session.status && !session.move && <p class="status quiet">{session.status}</p>}
      {detail.updateGate && <p class="status quiet">Waiting for the update of {detail.updateGate.harnessName} to end.</p>}
      <Alert error={action.error} />
      <div class="session-sticky">
        {tabbed && <SessionTabs tabs={tabs} current={current} choose={setTab} />}
        {detail.pendingQuestion && question.barShown && (
          <button type="button" class="asks-bar" onClick={question.reach}>
            The agent asks: {detail.pendingQuestion.message || "a question"} <span aria-hidden="true">↓</span>
          </button>
        )}
      </div>
      <div class="session-layout">
        <div {...tabPanel("conversation", shownTab, "session-main")}>
          <Conversation
            sessionId={sessionId}
            items={detail.conversation}
            detailChanges={detailChanges}
            hasEarlier={detail.hasMore}
            loadEarlier={loadEarlier}
            found={foundItem}
            waiting={session.sidebarState === "waiting"}
          />
          {detail.pendingQuestion && (
            <div ref={question.box}>
              <QuestionForm key={detail.pendingQuestion.questionId} sessionId={sessionId} pending={detail.pendingQuestion} />
            </div>
          )}
          {/* A plan waiting for approval sits by the composer, where a phone's reader is. */}
          {detail.pendingPlanApproval && <PlanPanel sessionId={sessionId} plan={detail.sessionPlan} awaitingApproval />}
          <PromptQueue prompts={detail.promptQueue} />
          {session.move?.state !== "moved" && (
            <Composer sessionId={sessionId} projectId={session.projectId} commands={detail.availableCommands} onSend={follow.followSent}>
              {!follow.atLatest && (
                <button type="button" class="jump-to-latest" onClick={follow.jumpToLatest}>
                  Jump to latest <span aria-hidden="true">↓</span>
                </button>
              )}
            </Composer>
          )}
        </div>
        <aside class="session-side" aria-label="Session details">
          {tabs.includes("plan") && (
            <div {...tabPanel("plan", shownTab)}>
              <PlanPanel sessionId={sessionId} plan={detail.sessionPlan} awaitingApproval={false} />
            </div>
          )}
          {tabs.includes("options") && (
            <div {...tabPanel("options", shownTab)}>
              <ConfigPanel sessionId={sessionId} options={detail.configOptions} />
            </div>
          )}
          {tabs.includes("usage") && (
            <div {...tabPanel("usage", shownTab)}>
              <UsagePanel usage={session.usage} />
            </div>
          )}
          <div {...tabPanel("goal", shownTab)}>
            <GoalPanel sessionId={sessionId} goal={detail.goal} />
          </div>
          <div {...tabPanel("schedules", shownTab)}>
            <SchedulesPanel sessionId={sessionId} />
          </div>
          {tabs.includes("tasks") && (
            <div {...tabPanel("tasks", shownTab)}>
              <TasksPanel sessionId={sessionId} tasks={detail.backgroundTasks} />
            </div>
          )}
          <div {...tabPanel("changes", shownTab)}>
            <section class="panel" aria-label="Changes">
              <h3>Changes</h3>
              <ChangesPanel source={path} mergeFrom={session.worktreeName ? path : undefined} agentWrites />
            </section>
          </div>
        </aside>
      </div>
    </section>
  );
}
