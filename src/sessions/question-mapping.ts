import type * as acp from "@agentclientprotocol/sdk";
import type { PendingQuestion, Question } from "../schemas/sessions.ts";
import type { PermissionAnswer, ToolCallDetails } from "../schemas/transcript.ts";
import { InvalidInputError } from "../errors.ts";

/** The client's answer to one question: chosen option ids, and free text where `allowsOther`. */
export interface QuestionAnswer {
  optionIds?: string[];
  text?: string;
}

const SECRET_NAME = /password|secret|token|api.?key|passphrase/i;

/** ACP's option kinds as people read them. */
const PERMISSION_KINDS: Record<acp.PermissionOptionKind, string> = {
  allow_once: "Allow once",
  allow_always: "Always allow",
  reject_once: "Reject",
  reject_always: "Always reject",
};

/**
 * A permission request as a one-question PendingQuestion whose options are the agent's, carrying the
 * tool call it asks about (`toolCall`: as the reply's details keep it, its diff or command included).
 */
export function permissionQuestion(questionId: string, request: acp.RequestPermissionRequest, toolCall: ToolCallDetails): PendingQuestion {
  // The call as merged: the request's title, else the one the call had.
  const title = toolCall.title || "The agent asks for permission";
  return {
    sessionUpdate: "question",
    questionId,
    message: title,
    questions: [
      {
        id: "permission",
        header: "Permission",
        question: title,
        options: request.options.map((option) => ({
          id: option.optionId,
          label: option.name,
          description: PERMISSION_KINDS[option.kind] ?? null,
          kind: option.kind,
        })),
        multiSelect: false,
        allowsOther: false,
        isSecret: false,
        backOptionLabel: null,
        presentation: "browserChoice",
      },
    ],
    autoResolutionMs: null,
    toolCall,
  };
}

/** Whether the answer refuses the call: a reject option, or the question withdrawn. */
export function isRefusal(request: acp.RequestPermissionRequest, response: acp.RequestPermissionResponse): boolean {
  if (response.outcome.outcome === "cancelled") return true;
  const chosen = response.outcome.optionId;
  return request.options.find((option) => option.optionId === chosen)?.kind.startsWith("reject") ?? false;
}

/** The answer to record on the call: the option chosen with its kind, or how the question ended unanswered. */
export function permissionAnswer(
  request: acp.RequestPermissionRequest,
  response: acp.RequestPermissionResponse,
  dismissed: boolean,
  answeredAt: string,
): PermissionAnswer {
  if (response.outcome.outcome === "cancelled") return { optionId: null, kind: null, outcome: dismissed ? "dismissed" : "cancelled", answeredAt };
  const optionId = response.outcome.optionId;
  const kind = request.options.find((option) => option.optionId === optionId)?.kind ?? null;
  return { optionId, kind, outcome: "selected", answeredAt };
}

export function permissionOutcome(question: PendingQuestion, answers: Record<string, QuestionAnswer>): acp.RequestPermissionResponse {
  const chosen = answers.permission?.optionIds?.[0];
  const valid = question.questions[0]?.options.some((option) => option.id === chosen);
  if (!chosen || !valid) throw new InvalidInputError("answers.permission.optionIds must name one of the question's options");
  return { outcome: { outcome: "selected", optionId: chosen } };
}

type FormProperty = acp.ElicitationPropertySchema;

function propertyQuestion(name: string, property: FormProperty): Question {
  const base = {
    id: name,
    header: typeof property.title === "string" ? property.title : name,
    question: typeof property.description === "string" ? property.description : typeof property.title === "string" ? property.title : name,
    backOptionLabel: null,
  };
  const isSecret = SECRET_NAME.test(name);
  if (property.type === "boolean") {
    return {
      ...base,
      options: [
        { id: "true", label: "Yes", description: null },
        { id: "false", label: "No", description: null },
      ],
      multiSelect: false,
      allowsOther: false,
      isSecret: false,
      presentation: "browserChoice",
    };
  }
  const choices = (source: unknown): Question["options"] => {
    const record = (source ?? {}) as { enum?: unknown; oneOf?: unknown; anyOf?: unknown };
    if (Array.isArray(record.enum)) return record.enum.map((value) => ({ id: String(value), label: String(value), description: null }));
    const list = (Array.isArray(record.oneOf) ? record.oneOf : Array.isArray(record.anyOf) ? record.anyOf : []) as Array<{ const?: unknown; title?: unknown }>;
    return list.map((entry) => ({ id: String(entry.const), label: String(entry.title ?? entry.const), description: null }));
  };
  if (property.type === "array") {
    return {
      ...base,
      options: choices((property as { items?: unknown }).items),
      multiSelect: true,
      allowsOther: false,
      isSecret: false,
      presentation: "browserChoice",
    };
  }
  const options = choices(property);
  if (options.length > 0) return { ...base, options, multiSelect: false, allowsOther: false, isSecret: false, presentation: "browserChoice" };
  return { ...base, options: [], multiSelect: false, allowsOther: true, isSecret, presentation: "text" };
}

/** A form elicitation as a PendingQuestion, one question per field of the form. */
export function elicitationQuestion(questionId: string, request: acp.CreateElicitationRequest): PendingQuestion | undefined {
  if (request.mode !== "form") return undefined;
  const schema = (request as { requestedSchema?: acp.ElicitationSchema }).requestedSchema;
  const properties = Object.entries(schema?.properties ?? {});
  return {
    sessionUpdate: "question",
    questionId,
    message: request.message,
    questions: properties.map(([name, property]) => propertyQuestion(name, property)),
    autoResolutionMs: null,
  };
}

/** The form's content from the answers; every question must be answered, with a valid choice. */
export function elicitationContent(
  request: acp.CreateElicitationRequest,
  question: PendingQuestion,
  answers: Record<string, QuestionAnswer>,
): acp.CreateElicitationResponse {
  const properties = (request as { requestedSchema?: acp.ElicitationSchema }).requestedSchema?.properties ?? {};
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const asked of question.questions) {
    const answer = answers[asked.id];
    if (!answer) throw new InvalidInputError(`answers.${asked.id} is missing`);
    const ids = answer.optionIds ?? [];
    const unknown = ids.find((id) => !asked.options.some((option) => option.id === id));
    if (unknown) throw new InvalidInputError(`answers.${asked.id}: "${unknown}" is not one of the options`);
    if (asked.multiSelect) content[asked.id] = ids;
    else if (properties[asked.id]?.type === "boolean" && ids.length === 1) content[asked.id] = ids[0] === "true";
    else if (ids.length === 1) content[asked.id] = ids[0]!;
    else if (asked.allowsOther && answer.text !== undefined) content[asked.id] = answer.text;
    else throw new InvalidInputError(`answers.${asked.id} needs ${asked.allowsOther ? "text" : "one option id"}`);
  }
  return { action: "accept", content };
}
