import { useRef, useState } from "preact/hooks";
import type { PendingQuestion, Question } from "../../../schemas/sessions.ts";
import type { PermissionOptionKind } from "../../../schemas/transcript.ts";
import { api } from "../shared/api.ts";
import { ToolCallView } from "./tool-call-view.tsx";
import { useFocusAfterAnswer } from "./focus-after-answer.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

interface Answer {
  optionIds: string[];
  text: string;
}

const EMPTY: Answer = { optionIds: [], text: "" };

function QuestionFields({ question, answer, change }: { question: Question; answer: Answer; change: (answer: Answer) => void }) {
  const choose = (optionId: string, checked: boolean) => {
    const optionIds = question.multiSelect
      ? checked
        ? [...answer.optionIds, optionId]
        : answer.optionIds.filter((chosen) => chosen !== optionId)
      : [optionId];
    change({ ...answer, optionIds });
  };
  return (
    <fieldset class="question">
      <legend>{question.header || question.question}</legend>
      {question.header && <p>{question.question}</p>}
      {question.options.map((option) => (
        <label key={option.id} class="check">
          <input
            type={question.multiSelect ? "checkbox" : "radio"}
            name={question.id}
            checked={answer.optionIds.includes(option.id)}
            onChange={(event) => choose(option.id, event.currentTarget.checked)}
          />
          {option.label}
          {option.description && <span class="quiet"> — {option.description}</span>}
        </label>
      ))}
      {(question.allowsOther || question.options.length === 0) && (
        <>
          <label for={`answer-${question.id}`}>{question.options.length > 0 ? "Other" : "Answer"}</label>
          {question.isSecret ? (
            <input
              id={`answer-${question.id}`}
              type="password"
              autocomplete="off"
              value={answer.text}
              onInput={(event) => change({ ...answer, text: event.currentTarget.value })}
            />
          ) : (
            <input id={`answer-${question.id}`} type="text" value={answer.text} onInput={(event) => change({ ...answer, text: event.currentTarget.value })} />
          )}
        </>
      )}
    </fieldset>
  );
}

/** A question answered by one choice and nothing else (a permission question): its options are buttons. */
const isOneTap = (questions: Question[]): questions is [Question] =>
  questions.length === 1 && !questions[0]!.multiSelect && !questions[0]!.allowsOther && !questions[0]!.isSecret && questions[0]!.options.length > 0;

type Option = Question["options"][number];

/**
 * What a permission option does, by ACP's kind: the safe choice first and strongest, Reject apart from
 * it, the choices that last beyond this call last and quiet.
 */
const OPTION_ROLES: Record<PermissionOptionKind, { rank: number; style: string }> = {
  allow_once: { rank: 0, style: "" },
  reject_once: { rank: 1, style: "reject-button" },
  allow_always: { rank: 3, style: "quiet-button always" },
  reject_always: { rank: 3, style: "quiet-button always" },
};

const roleOf = (option: Option) => (option.kind ? OPTION_ROLES[option.kind] : null);

/** The options in the order a careful reader wants them: another question's keep theirs. */
const safestFirst = (options: Option[]) => options.toSorted((a, b) => (roleOf(a)?.rank ?? 2) - (roleOf(b)?.rank ?? 2));

/** An option's words, and what it does in ACP's words when its name does not say it already ("Allow" — "Allow once"). */
function OptionButton({ option, busy, choose }: { option: Option; busy: boolean; choose: () => void }) {
  const says = option.description && option.description.toLowerCase() !== option.label.toLowerCase() ? option.description : null;
  return (
    <button type="button" class={`option-button ${roleOf(option)?.style ?? "quiet-button"}`} aria-disabled={busy} onClick={() => busy || choose()}>
      {option.label}
      {says && <span class="option-says"> {says}</span>}
    </button>
  );
}

/** The agent's question: pick its options or write an answer, or dismiss it (the agent is told it was cancelled). */
export function QuestionForm({ sessionId, pending }: { sessionId: string; pending: PendingQuestion }) {
  const form = useRef<HTMLFormElement>(null);
  useFocusAfterAnswer(form, pending.toolCall?.toolCallId ?? null);
  const [answers, setAnswers] = useState<Record<string, Answer>>({});
  const action = useAction();
  const path = `/v1/sessions/${sessionId}/questions/${pending.questionId}`;
  const answer = (event: Event) => {
    event.preventDefault();
    if (action.busy) return;
    const body = Object.fromEntries(
      pending.questions.map((question) => {
        const { optionIds, text } = answers[question.id] ?? EMPTY;
        return [question.id, { ...(optionIds.length > 0 ? { optionIds } : {}), ...(text ? { text } : {}) }];
      }),
    );
    void action.run(() => api("POST", `${path}/answer`, { answers: body }));
  };
  const questions = pending.questions;
  const chooseOnly = (questionId: string, option: Option) =>
    action.run(() => api("POST", `${path}/answer`, { answers: { [questionId]: { optionIds: [option.id] } } }));
  return (
    <form class="panel question-form" aria-label="The agent asks" onSubmit={answer} ref={form}>
      <h3>{pending.message || "The agent asks"}</h3>
      {pending.toolCall && <ToolCallView call={pending.toolCall} />}
      {isOneTap(questions) ? (
        <OneTapQuestion question={questions[0]} busy={action.busy} choose={(option) => void chooseOnly(questions[0].id, option)} />
      ) : (
        <AnsweredQuestions questions={questions} answers={answers} setAnswers={setAnswers} busy={action.busy} />
      )}
      <div class="row-actions">
        <button type="button" class="quiet-button" aria-disabled={action.busy} onClick={() => action.busy || action.run(() => api("POST", `${path}/dismiss`))}>
          Dismiss
        </button>
      </div>
      <Alert error={action.error} />
    </form>
  );
}

function OneTapQuestion({ question, busy, choose }: { question: Question; busy: boolean; choose: (option: Option) => void }) {
  return (
    <fieldset class="option-buttons">
      <legend class="visually-hidden">{question.question}</legend>
      {safestFirst(question.options).map((option) => (
        <OptionButton key={option.id} option={option} busy={busy} choose={() => choose(option)} />
      ))}
    </fieldset>
  );
}

function AnsweredQuestions(props: {
  questions: Question[];
  answers: Record<string, Answer>;
  setAnswers: (change: (current: Record<string, Answer>) => Record<string, Answer>) => void;
  busy: boolean;
}) {
  return (
    <>
      {props.questions.map((question) => (
        <QuestionFields
          key={question.id}
          question={question}
          answer={props.answers[question.id] ?? EMPTY}
          change={(changed) => props.setAnswers((current) => ({ ...current, [question.id]: changed }))}
        />
      ))}
      <button type="submit" aria-disabled={props.busy}>
        Answer
      </button>
    </>
  );
}
