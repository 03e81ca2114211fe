import type { ToolCallDetails } from "../../../schemas/transcript.ts";
import { AnsiOutput } from "../shared/ansi-output.tsx";
import { CodeBlock } from "../shared/code-block.tsx";
import { DiffView } from "../shared/diff-view.tsx";
import { languageOfPath } from "../shared/highlight.ts";
import { MarkdownText } from "./markdown-text.tsx";

const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

/** A text that is one fenced code block and nothing else, as agents wrap a file's or a command's output. */
const WHOLE_FENCE = /^(`{3,}|~{3,})([^\n`]*)\n([\s\S]*?)\n?\1\s*$/;

/** A content block's text, if it is text. */
const textOf = (content: unknown): string | null => {
  const block = content as { type?: string; text?: unknown };
  return block.type === "text" && typeof block.text === "string" ? block.text : null;
};

/** A command's, as the agents put it in their raw input. */
const commandOf = (rawInput: unknown): string | null => {
  const command = (rawInput as { command?: unknown } | null)?.command;
  return typeof command === "string" ? command : Array.isArray(command) ? command.join(" ") : null;
};

/**
 * A text the call carries. A command's fenced output keeps its terminal colours (before it ends, the
 * text is what the command is for); a file's fenced text is code in the file's language; anything else
 * is the agent's markdown.
 */
function OutputText({ text, execute, path }: { text: string; execute: boolean; path: string | undefined }) {
  const fenced = WHOLE_FENCE.exec(text.trim());
  if (!fenced) return execute ? <p class="quiet">{text}</p> : <MarkdownText text={text} />;
  const body = fenced[3] ?? "";
  if (execute)
    return (
      <pre class="tool-output">
        <AnsiOutput text={body} />
      </pre>
    );
  return <CodeBlock code={body} language={fenced[2]?.trim() || (path ? languageOfPath(path) : "")} />;
}

/**
 * What a tool call did, as plainly as its content allows: the diffs it writes (drawn line by line),
 * the command it runs and its output in colour, a file's text as code; its raw input and output only
 * where it has no richer content.
 */
export function ToolCallView({ call }: { call: ToolCallDetails }) {
  const execute = call.kind === "execute";
  const diffs = call.content.flatMap((content) => (content.type === "diff" ? [content] : []));
  const texts = call.content.flatMap((content) => {
    const text = content.type === "content" ? textOf(content.content) : null;
    return text === null ? [] : [text];
  });
  const command = execute ? commandOf(call.rawInput) : null;
  const richer = diffs.length > 0 || texts.length > 0 || command !== null;
  return (
    <div class="tool-call-view">
      {/* A diff names its file already. */}
      {diffs.length === 0 && call.locations.length > 0 && <p class="quiet tool-paths">{call.locations.map((location) => location.path).join(", ")}</p>}
      {command !== null && <pre class="tool-command">$ {command}</pre>}
      {diffs.map((diff) => (
        <DiffView key={diff.path} path={diff.path} oldText={diff.oldText ?? null} newText={diff.newText} />
      ))}
      {texts.map((text, index) => (
        <OutputText key={index} text={text} execute={execute} path={call.locations[0]?.path} />
      ))}
      {!richer && call.rawInput != null && <pre>{asText(call.rawInput)}</pre>}
      {!richer && call.rawOutput != null && <pre>{asText(call.rawOutput)}</pre>}
      {!richer && call.rawInput == null && call.rawOutput == null && <p class="quiet">Nothing to show yet.</p>}
    </div>
  );
}
