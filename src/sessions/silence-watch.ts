/**
 * Notices when an agent has sent nothing for a while during a turn (an agent retrying an unreachable
 * provider can be silent for minutes): `onQuiet` is told how long, every third of the notice time
 * past it; `onHeard` once when the agent speaks again after that.
 */
export class SilenceWatch {
  private lastHeardMs = Date.now();
  private quiet = false;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    noticeMs: number,
    private readonly handlers: { onQuiet: (quietMs: number) => void; onHeard: () => void; paused: () => boolean },
  ) {
    this.timer = setInterval(
      () => {
        const quietMs = Date.now() - this.lastHeardMs;
        if (quietMs < noticeMs || handlers.paused()) return;
        this.quiet = true;
        handlers.onQuiet(quietMs);
      },
      Math.max(250, Math.floor(noticeMs / 3)),
    );
    this.timer.unref?.();
  }

  heard(): void {
    this.lastHeardMs = Date.now();
    if (!this.quiet) return;
    this.quiet = false;
    this.handlers.onHeard();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
