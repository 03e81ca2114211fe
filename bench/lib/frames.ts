/** The page side of the streaming measurements (a reply drawn frame by frame), and the arithmetic on what it records. */
import { percentile } from "./stats.ts";

/** Times are ms from the page's time origin. */
export interface FrameLog {
  /** Every animation frame's time (the rAF callbacks' argument) while recording. */
  frames: number[];
  /** The reply's first text was in the DOM. */
  firstDeltaMs: number | null;
  /** The reply lost `data-generating` (its turn had ended) and no part of it is `data-drawing` (the page caught up). */
  doneMs: number | null;
  /** DOM updates of the page from the first text to the end (about one per frame that drew new text). */
  updates: number;
  recording: boolean;
}

declare global {
  interface Window {
    frameLog?: FrameLog;
  }
}

/**
 * Starts recording the time of every animation frame, and when the session's reply shows its first
 * text and when it stops generating. Each check is a query or two per mutation batch: cheap enough
 * not to cost the frames it counts.
 */
export function startFrameLog(): void {
  const log: FrameLog = { frames: [], firstDeltaMs: null, doneMs: null, updates: 0, recording: true };
  window.frameLog = log;
  const tick = (frameTime: number) => {
    if (!log.recording) return;
    log.frames.push(frameTime);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  new MutationObserver(() => {
    if (!log.recording || log.doneMs !== null) return;
    const reply = document.querySelector(".message.assistant");
    if (!reply) return;
    if (log.firstDeltaMs === null && document.querySelector(".message.assistant .message-text")?.firstChild) log.firstDeltaMs = performance.now();
    if (log.firstDeltaMs !== null) log.updates++;
    // Done when the turn has ended and the page has drawn all of it (a fast reply is drawn a frame's worth at a time).
    const drawn = !reply.querySelector("[data-drawing]");
    if (log.firstDeltaMs !== null && !reply.hasAttribute("data-generating") && drawn) log.doneMs = performance.now();
  }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-generating", "data-drawing"] });
}

/** Whether the reply is done and the frames recorded reach `afterMs` past its end (and the frame under way then has ended). */
export function framesPastDone(afterMs: number): boolean {
  const log = window.frameLog;
  return log?.doneMs != null && (log.frames.at(-1) ?? 0) > log.doneMs + afterMs;
}

/** Whether the frames recorded since the log started span more than `ms` (and the frame under way then has ended). */
export function framesCover(ms: number): boolean {
  const frames = window.frameLog?.frames ?? [];
  return frames.length > 1 && frames.at(-1)! > frames[0]! + ms;
}

export function stopFrameLog(): FrameLog {
  const log = window.frameLog;
  if (!log) throw new Error("the frame log was never started");
  log.recording = false;
  return log;
}

/** The text the newest reply shows, all its blocks joined, and how many code blocks it holds. */
export function replyShown(): { text: string; codeBlocks: number } {
  const replies = document.querySelectorAll(".message.assistant");
  const newest = replies[replies.length - 1];
  return { text: newest?.querySelector(".message-text")?.textContent ?? "", codeBlocks: newest?.querySelectorAll(".code-block").length ?? 0 };
}

/** A frame this long or longer missed at least one 60 Hz vsync: two periods are 33.3 ms. */
export const LONG_FRAME_MS = 33;

/**
 * The frames that began from `fromMs` (the frame that was under way then) to `toMs` (likewise): each
 * frame lasts until the next one begins, so the log must go on past `toMs`.
 */
export function frameStats(frames: readonly number[], fromMs: number, toMs: number) {
  const first = Math.max(
    0,
    frames.findLastIndex((frame) => frame <= fromMs),
  );
  const last = frames.findLastIndex((frame) => frame <= toMs);
  if (last < first || last + 1 >= frames.length) throw new Error(`the frame log does not cover ${fromMs.toFixed(0)}–${toMs.toFixed(0)} ms`);
  const durations = frames.slice(first + 1, last + 2).map((end, index) => end - frames[first + index]!);
  const elapsedMs = frames[last + 1]! - frames[first]!;
  return {
    frames: durations.length,
    elapsedMs,
    framesPerSecond: durations.length / (elapsedMs / 1000),
    longestMs: Math.max(...durations),
    /** Share of frames longer than `LONG_FRAME_MS`, in %. */
    longSharePercent: (durations.filter((duration) => duration > LONG_FRAME_MS).length / durations.length) * 100,
    p95Ms: percentile(durations, 95),
  };
}
