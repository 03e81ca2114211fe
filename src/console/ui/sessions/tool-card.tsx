import { useState } from "preact/hooks";
import type { ToolCallDetails } from "../../../schemas/transcript.ts";
import { InlineMarkdown } from "../shared/inline-markdown.tsx";
import { AgentTerminalLinks } from "../terminals/agent-terminal-links.tsx";
import { ToolCallView } from "./tool-call-view.tsx";
import { useDecision } from "./question-decisions.ts";

/**
 * ACP's tool kinds, each with a mark a reader tells apart at a glance and a word for screen readers.
 * Text symbols, not emoji: they take the text's colour and exist in the fonts every system has.
 */
const KINDS: Record<string, { icon: string; label: string }> = {
  read: { icon: "☰", label: "Read" },
  edit: { icon: "✎", label: "Edit" },
  delete: { icon: "✕", label: "Delete" },
  move: { icon: "⇄", label: "Move" },
  search: { icon: "⌕", label: "Search" },
  execute: { icon: "❯", label: "Run" },
  think: { icon: "∴", label: "Think" },
  fetch: { icon: "⤓", label: "Fetch" },
  switch_mode: { icon: "⇆", label: "Switch mode" },
};
const OTHER_KIND = { icon: "⚙", label: "Tool" };

const STATUSES: Record<string, string> = { pending: "Pending", in_progress: "Running", completed: "Done", failed: "Failed" };

/** The last part of a path, which is what tells files apart in a list of a few. */
const fileName = (path: string) => path.slice(path.lastIndexOf("/") + 1) || path;

/**
 * A tool call where it happened in the reply: one line with its kind, title, the answer given to the
 * question about it, its status and the files it touches, opening to what it did. The content is drawn only once opened, so a long session's cards
 * cost a line each.
 */
export function ToolCard({ sessionId, call }: { sessionId: string; call: ToolCallDetails }) {
  const decision = useDecision(sessionId, call);
  const [open, setOpen] = useState(false);
  const kind = KINDS[call.kind ?? ""] ?? OTHER_KIND;
  const status = call.status ?? "pending";
  const files = [...new Set(call.locations.map((location) => location.path))];
  return (
    <details
      class={`tool-card ${status}`}
      data-kind={call.kind ?? "other"}
      data-tool-call={call.toolCallId}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>
        <span class="tool-icon" role="img" aria-label={kind.label}>
          {kind.icon}
        </span>
        <span class="tool-title">
          <InlineMarkdown text={call.title || kind.label} />
        </span>
        {decision && <span class="tool-decision">{decision}</span>}
        <span class={`tool-status ${status}`}>{STATUSES[status] ?? status}</span>
        {files.length > 0 && (
          <span class="tool-files quiet" title={files.join("\n")}>
            {files.map(fileName).join(", ")}
          </span>
        )}
      </summary>
      {open && <ToolCallView call={call} />}
      {open && <AgentTerminalLinks sessionId={sessionId} call={call} />}
    </details>
  );
}
