/**
 * The install and update output the page's event stream brought (`terminal.output`), kept per terminal so
 * a log opened after its first lines arrived still shows them, and handed to the logs that listen.
 */
export class TerminalFeed {
  private readonly chunks = new Map<string, string[]>();
  private readonly listeners = new Map<string, Set<(text: string) => void>>();
  /** The terminals the harness list named when it was read, whose start the stream may have missed. */
  private readonly knownAtLoad = new Set<string>();

  /** Notes the terminals the list named when it was read; told before any log is shown. */
  noteListed(terminalIds: readonly string[]): void {
    for (const terminalId of terminalIds) this.knownAtLoad.add(terminalId);
  }

  /** Whether the stream carries all of this terminal's output (it was opened after the list was read). */
  followedFromStart(terminalId: string): boolean {
    return !this.knownAtLoad.has(terminalId);
  }

  /** Everything received for the terminal so far. */
  received(terminalId: string): string {
    return (this.chunks.get(terminalId) ?? []).join("");
  }

  add(terminalId: string, text: string): void {
    const kept = this.chunks.get(terminalId);
    if (kept) kept.push(text);
    else this.chunks.set(terminalId, [text]);
    for (const listener of this.listeners.get(terminalId) ?? []) listener(text);
  }

  /** Calls `onText` with each later chunk of the terminal's output; returns the function that stops it. */
  listen(terminalId: string, onText: (text: string) => void): () => void {
    const listeners = this.listeners.get(terminalId) ?? new Set();
    this.listeners.set(terminalId, listeners);
    listeners.add(onText);
    return () => listeners.delete(onText);
  }
}
