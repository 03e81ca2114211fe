import type { ConnectionState } from "./terminal-connection.ts";

/** How a terminal that ended is named: its exit status, or the signal that ended it. */
export function exitText(exit: { exitCode: number | null; signal: string | null }): string {
  return exit.signal ? `exited (${exit.signal})` : `exited (code ${exit.exitCode})`;
}

function stateText(state: ConnectionState): string {
  switch (state.kind) {
    case "connecting":
      return "Connecting…";
    case "open":
      return "";
    case "reconnecting":
      return `Reconnecting: ${state.reason}.`;
    case "exited":
      return exitText(state);
    case "refused":
      return state.error;
  }
}

/**
 * Where the terminal's connection stands, said to screen readers as it changes. A refusal is the server's
 * own sentence, which says how to allow terminals (https, or `terminalsOverPlainHttp` in config.json).
 */
export function ConnectionStatus({ state }: { state: ConnectionState | null }) {
  return (
    <p role="status" class={`terminal-status ${state?.kind === "refused" ? "error" : "quiet"}`}>
      {state && stateText(state)}
    </p>
  );
}
