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
  return (
    <form class="panel question-form" aria-label="The agent asks" onSubmit={answer}>
      <h3>{pending.message || "The agent asks"}</h3>
      {pending.toolCall && <ToolCallView call={pending.toolCall} />}
      {pending.questions.map((question) => (
        <QuestionFields
          key={question.id}
          question={question}
          answer={answers[question.id] ?? EMPTY}
          change={(changed) => setAnswers((current) => ({ ...current, [question.id]: changed }))}
        />
      ))}
      <div class="row-actions">
        <button type="submit" disabled={action.busy}>
          Answer
        </button>
        <button type="button" class="quiet-button" disabled={action.busy} onClick={() => action.run(() => api("POST", `${path}/dismiss`))}>
          Dismiss
        </button>
      </div>
      <Alert error={action.error} />
    </form>
  );
}
