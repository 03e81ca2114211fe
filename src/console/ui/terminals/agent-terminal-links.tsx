import type { ToolCallDetails } from "../../../schemas/transcript.ts";
import { agentTerminalHref } from "../shell/router.ts";

/**
 * On a tool call's card, a link to each terminal its output is in (the agent's `terminal/create`: the
 * ACP terminal id is the session's background task key), to read it in the terminal emulator.
 */
export function AgentTerminalLinks({ sessionId, call }: { sessionId: string; call: ToolCallDetails }) {
  const terminalIds = call.content.flatMap((content) => (content.type === "terminal" ? [content.terminalId] : []));
  return (
    <>
      {terminalIds.map((terminalId) => (
        <a key={terminalId} class="terminal-link" href={agentTerminalHref(sessionId, terminalId)}>
          Open in terminal view
        </a>
      ))}
    </>
  );
}
