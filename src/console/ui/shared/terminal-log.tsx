import type { Static } from "@sinclair/typebox";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Terminal } from "../../../schemas/harnesses.ts";
import { Alert } from "./use-action.tsx";
import { api } from "./api.ts";
import { failureText } from "./failure-text.ts";
import type { TerminalFeed } from "./terminal-feed.ts";
import { AnsiText, type StyledRun } from "./ansi-text.ts";

type TerminalRecord = Static<typeof Terminal>;

/**
 * `text` without the lines at its start that `shown` already ends with. The terminal read by id holds
 * lines not yet sent as an event (they go out in batches), so the first batch after it may repeat some.
 */
function withoutOverlap(shown: string, text: string): string {
  let end = text.lastIndexOf("\n");
  while (end >= 0) {
    if (shown.endsWith(text.slice(0, end + 1))) return text.slice(end + 1);
    end = end === 0 ? -1 : text.lastIndexOf("\n", end - 1);
  }
  return text;
}

/** The runs as DOM nodes: a text node, or a span with the style's classes. */
function runNodes(runs: StyledRun[]): Node[] {
  return runs.map((run) => {
    if (run.classes === "") return document.createTextNode(run.text);
    const span = document.createElement("span");
    span.className = run.classes;
    span.textContent = run.text;
    return span;
  });
}

/** Appends output to a log element in its colours, keeping it scrolled to the end when the reader was there. */
function appendTo(log: HTMLElement, ansi: AnsiText, text: string): void {
  if (text.length === 0) return;
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  log.append(...runNodes(ansi.write(text)));
  if (atEnd) log.scrollTop = log.scrollHeight;
}

/**
 * The output of an install or update: what the server kept, then each `terminal.output` batch as it
 * arrives, appended to the element in its colours (a long install never redraws what is already shown).
 */
export function TerminalLog({ terminalId, running, feed }: { terminalId: string; running: boolean; feed: TerminalFeed }) {
  const output = useRef<HTMLPreElement>(null);
  const [record, setRecord] = useState<TerminalRecord | null>(null);
  const [error, setError] = useState<string | null>(null);
  const path = `/v1/terminals/${encodeURIComponent(terminalId)}`;

  // One read at the start: the command line, and the kept output of a terminal from before the page's stream.
  useEffect(() => {
    const log = output.current;
    if (!log) return;
    log.textContent = "";
    const ansi = new AnsiText();
    const followed = feed.followedFromStart(terminalId);
    if (followed) appendTo(log, ansi, feed.received(terminalId));
    // Batches that came before the read are in its output; the first one after it may repeat its last lines.
    let kept: string | null = followed ? "" : null;
    let firstBatch = !followed;
    const stop = feed.listen(terminalId, (text) => {
      if (kept === null) return;
      appendTo(log, ansi, firstBatch ? withoutOverlap(kept, text) : text);
      firstBatch = false;
    });
    api<TerminalRecord>("GET", path).then(
      (terminal) => {
        setRecord(terminal);
        if (kept !== null) return;
        kept = terminal.output;
        appendTo(log, ansi, kept);
      },
      (failure: unknown) => setError(failureText(failure)),
    );
    return stop;
  }, [terminalId]);

  // Read again when the operation ends, for its exit code.
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) api<TerminalRecord>("GET", path).then(setRecord, (failure: unknown) => setError(failureText(failure)));
    wasRunning.current = running;
  }, [running]);

  return (
    <div class="install-terminal">
      {record && <code class="terminal-command">$ {record.command}</code>}
      {record?.truncated && <p class="detail">The start of the output was dropped.</p>}
      <pre class="terminal-output" ref={output} role="log" aria-label="Output" />
      {record && record.exitCode !== null && (
        <p class={record.exitCode === 0 ? "terminal-exit good" : "terminal-exit bad"}>Exited with code {record.exitCode}</p>
      )}
      <Alert error={error} />
    </div>
  );
}
