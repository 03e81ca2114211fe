import type { PendingQuestion } from "../schemas/sessions.ts";
import { NotFoundError } from "../errors.ts";
import { SessionRecords } from "./session-records.ts";
import type * as acp from "@agentclientprotocol/sdk";
import { newId } from "../ids.ts";
import type { ReplyStream } from "./reply-stream.ts";
import { mergeToolCall } from "./transcript-mapping.ts";
import {
  elicitationContent,
  elicitationQuestion,
  isRefusal,
  permissionAnswer,
  permissionOutcome,
  permissionQuestion,
  type QuestionAnswer,
} from "./question-mapping.ts";

interface OpenQuestion {
  question: PendingQuestion;
  answer: (answers: Record<string, QuestionAnswer>) => void;
  /** `dismissed`: the user withdrew it, rather than the turn or the agent ending. */
  withdraw: (dismissed: boolean) => void;
}

/** How a question was settled: the response for the agent, and whether the user dismissed it. */
interface Settled<T> {
  response: T;
  dismissed: boolean;
}

export interface SessionQuestionsDeps {
  sessionId: string;
  records: SessionRecords;
  /** Runs before a question is shown, so the reply streamed so far comes first. */
  beforeAsking(): void;
  /** Whether a turn runs (the session is `working` again once the question is settled). */
  turnRunning(): boolean;
  /** The session stopped: a settled question records nothing more. */
  closed(): boolean;
}

/** The question an agent waits on (a permission, a form): shown on the session until answered or withdrawn. */
export class SessionQuestions {
  private open: OpenQuestion | undefined;

  constructor(private readonly deps: SessionQuestionsDeps) {}

  get isOpen(): boolean {
    return this.open !== undefined;
  }

  /** Shows the question, waits for the answer (or its withdrawal), and clears it again. */
  ask<T>(question: PendingQuestion, toResponse: (question: PendingQuestion, answers: Record<string, QuestionAnswer>) => T, withdrawn: T): Promise<Settled<T>> {
    const { sessionId, records } = this.deps;
    this.open?.withdraw(false);
    this.deps.beforeAsking();
    records.update(sessionId, (session) => {
      session.pendingQuestion = question;
      session.sidebarState = "waiting";
      SessionRecords.attention(session);
      records.emit(sessionId, "session.question", { question });
    });
    return new Promise<Settled<T>>((resolve) => {
      const settle = (response: T, dismissed = false) => {
        if (this.open?.question.questionId !== question.questionId) return;
        this.open = undefined;
        resolve({ response, dismissed });
        if (this.deps.closed()) return;
        records.update(sessionId, (session) => {
          session.pendingQuestion = null;
          if (session.sidebarState === "waiting" && !session.pendingPlanApproval) session.sidebarState = this.deps.turnRunning() ? "working" : "idle";
          records.emit(sessionId, "session.question", { question: null });
        });
      };
      this.open = {
        question,
        // Validates first: a bad answer is a 400 and the question stays open.
        answer: (answers) => settle(toResponse(question, answers)),
        withdraw: (dismissed) => settle(withdrawn, dismissed),
      };
    });
  }

  /**
   * An agent's permission request, asked with the tool call it is about: the call is in the reply's
   * details from now on, not only once it is answered, and a refused one the agent leaves pending fails.
   */
  async askPermission(request: acp.RequestPermissionRequest, reply: ReplyStream | undefined): Promise<acp.RequestPermissionResponse> {
    const toolCall = reply?.recordToolCall(request.toolCall) ?? mergeToolCall(undefined, request.toolCall, 0);
    const { response, dismissed } = await this.ask(permissionQuestion(newId("q"), request, toolCall), (q, answers) => permissionOutcome(q, answers), {
      outcome: { outcome: "cancelled" },
    });
    // A stopped session records nothing more (its reply is closed).
    if (!this.deps.closed())
      reply?.recordPermission(request.toolCall.toolCallId, permissionAnswer(request, response, dismissed, this.deps.records.timestamp()));
    if (isRefusal(request, response)) reply?.refuseCall(request.toolCall.toolCallId);
    return response;
  }

  /** An agent's form, one question per field; a form of another mode is declined. */
  askForm(request: acp.CreateElicitationRequest): Promise<acp.CreateElicitationResponse> {
    const question = elicitationQuestion(newId("q"), request);
    if (!question) return Promise.resolve({ action: "decline" });
    return this.ask(question, (q, answers) => elicitationContent(request, q, answers), { action: "cancel" }).then((settled) => settled.response);
  }

  answer(questionId: string, answers: Record<string, QuestionAnswer>): void {
    this.find(questionId).answer(answers);
  }

  /** Withdraws a pending question (the agent gets "cancelled"). */
  dismiss(questionId: string): void {
    this.find(questionId).withdraw(true);
  }

  /** Withdraws whatever question is open. */
  withdraw(): void {
    this.open?.withdraw(false);
  }

  private find(questionId: string): OpenQuestion {
    const open = this.open;
    if (!open || open.question.questionId !== questionId) throw new NotFoundError(`no pending question ${questionId}`);
    return open;
  }
}
