import type { PtyTerminal } from "../../../schemas/terminals.ts";
import { exitText } from "./connection-status.tsx";

export interface TerminalListProps {
  terminals: PtyTerminal[];
  shownId: string | null;
  busy: boolean;
  show(id: string): void;
  close(terminal: PtyTerminal): void;
  create(): void;
}

const terminalName = (index: number) => `Terminal ${index + 1}`;

/** The terminals of the place, each to show or close (which ends its shell); and a new one. */
export function TerminalList({ terminals, shownId, busy, show, close, create }: TerminalListProps) {
  return (
    <div class="terminal-list">
      <ul aria-label="Terminals">
        {terminals.map((terminal, index) => (
          <li key={terminal.id} class={terminal.id === shownId ? "shown" : undefined}>
            <button
              type="button"
              class="quiet-button terminal-open"
              aria-current={terminal.id === shownId}
              title={terminal.cwd}
              onClick={() => show(terminal.id)}
            >
              {terminalName(index)}
              {terminal.state === "exited" && <span class="quiet"> · {exitText(terminal)}</span>}
            </button>
            <button
              type="button"
              class="quiet-button terminal-close"
              aria-label={`Close ${terminalName(index)}`}
              disabled={busy}
              onClick={() => close(terminal)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <button type="button" class="quiet-button" disabled={busy} onClick={create}>
        New terminal
      </button>
    </div>
  );
}
