import { useState } from "preact/hooks";
import type { PendingQuestion, Question } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { ToolCallView } from "./tool-call-view.tsx";
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

/** An option's words, and what it does in ACP's words when its name does not say it already ("Allow" — "Allow once"). */
function OptionButton({ option, busy, choose }: { option: Question["options"][number]; busy: boolean; choose: () => void }) {
  const says = option.description && option.description.toLowerCase() !== option.label.toLowerCase() ? option.description : null;
  return (
    <button type="button" class="option-button" disabled={busy} onClick={choose}>
      {option.label}
      {says && <span class="option-says"> {says}</span>}
    </button>
  );
}

/** The agent's question: pick its options or write an answer, or dismiss it (the agent is told it was cancelled). */
export function QuestionForm({ sessionId, pending }: { sessionId: string; pending: PendingQuestion }) {
  const [answers, setAnswers] = useState<Record<string, Answer>>({});
  const action = useAction();
  const path = `/v1/sessions/${sessionId}/questions/${pending.questionId}`;
  const answer = (event: Event) => {
    event.preventDefault();
    const body = Object.fromEntries(
      pending.questions.map((question) => {
        const { optionIds, text } = answers[question.id] ?? EMPTY;
        return [question.id, { ...(optionIds.length > 0 ? { optionIds } : {}), ...(text ? { text } : {}) }];
      }),
    );
    void action.run(() => api("POST", `${path}/answer`, { answers: body }));
  };
  const questions = pending.questions;
  const chooseOnly = (questionId: string, optionId: string) =>
    action.run(() => api("POST", `${path}/answer`, { answers: { [questionId]: { optionIds: [optionId] } } }));
  return (
    <form class="panel question-form" aria-label="The agent asks" onSubmit={answer}>
      <h3>{pending.message || "The agent asks"}</h3>
      {pending.toolCall && <ToolCallView call={pending.toolCall} />}
      {isOneTap(questions) ? (
        <OneTapQuestion question={questions[0]} busy={action.busy} choose={(optionId) => void chooseOnly(questions[0].id, optionId)} />
      ) : (
        <AnsweredQuestions questions={questions} answers={answers} setAnswers={setAnswers} busy={action.busy} />
      )}
      <div class="row-actions">
        <button type="button" class="quiet-button" disabled={action.busy} onClick={() => action.run(() => api("POST", `${path}/dismiss`))}>
          Dismiss
        </button>
      </div>
      <Alert error={action.error} />
    </form>
  );
}

function OneTapQuestion({ question, busy, choose }: { question: Question; busy: boolean; choose: (optionId: string) => void }) {
  return (
    <fieldset class="option-buttons">
      <legend class="visually-hidden">{question.question}</legend>
      {question.options.map((option) => (
        <OptionButton key={option.id} option={option} busy={busy} choose={() => choose(option.id)} />
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
      <button type="submit" disabled={props.busy}>
        Answer
      </button>
    </>
  );
}
