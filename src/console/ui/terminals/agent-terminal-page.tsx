import { useEffect, useRef, useState } from "preact/hooks";
import type { BackgroundTaskOutput } from "../../../schemas/sessions.ts";
import { Alert } from "../shared/use-action.tsx";
import { PageHeading } from "../shell/page-heading.tsx";
import { sessionHref } from "../shell/router.ts";
import { exitText } from "./connection-status.tsx";
import { useAgentTerminal } from "./use-agent-terminal.ts";
import { useEmulator } from "./use-emulator.ts";
import { useFit } from "./use-fit.ts";
import { useVisibleHeight } from "./use-visible-height.ts";
import { WrittenOutput } from "./written-output.ts";

function statusText(read: BackgroundTaskOutput | null, released: boolean): string {
  if (released) return "The agent released this terminal: its output is no longer kept (what was read last is shown).";
  if (!read) return "Loading…";
  if (read.task.status === "running") return "Running. Read-only: the agent runs this command, and it is shown again as it ends.";
  return read.task.status === "killed" ? "killed" : exitText(read);
}

/**
 * A command the session's agent runs in a terminal of its own (ACP `terminal/create`), in the terminal
 * emulator: its output as the server keeps it, read-only (the agent's commands take no input).
 */
export function AgentTerminalPage({ sessionId, terminalKey }: { sessionId: string; terminalKey: string }) {
  const view = useRef<HTMLDivElement>(null);
  const screen = useRef<HTMLElement>(null);
  const { read, released, error } = useAgentTerminal(sessionId, terminalKey);
  // The heading and label keep the command once it is known, after the terminal is released too.
  const [command, setCommand] = useState<string | null>(null);
  const [written] = useState(() => new WrittenOutput());
  useVisibleHeight(view);
  const label = `Output of ${command ?? "the agent's command"}`;
  const { emulator, problem } = useEmulator(screen, label, { readOnly: true }, (opened) => void opened.fit());
  // The size matters only to how lines wrap here: nothing runs on this screen to be told of it.
  useFit(emulator, screen, () => {});

  useEffect(() => {
    if (read) setCommand(read.task.description);
    if (!emulator || !read) return;
    const step = written.next(read.output);
    if (step.clear) emulator.reset();
    emulator.write(step.text);
  }, [emulator, read]);

  return (
    <section class="terminal-page">
      <header class="terminal-header">
        <a href={sessionHref(sessionId)} class="back">
          ← Session
        </a>
        <PageHeading text={command ? `Agent's terminal · ${command}` : "Agent's terminal"} />
      </header>
      <Alert error={error ?? problem} />
      {read?.truncated && <p class="quiet">The start of the output was dropped (the agent's output limit).</p>}
      <div class="terminal-view" ref={view}>
        <p role="status" class="terminal-status quiet">
          {statusText(read, released)}
        </p>
        <section class="terminal-screen" ref={screen} aria-label={label} />
      </div>
    </section>
  );
}
