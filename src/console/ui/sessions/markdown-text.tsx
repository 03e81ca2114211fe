import { markdownNodes } from "../shared/markdown-dom.ts";
import { highlightCodeIn } from "../shared/highlight.ts";
import { cutPoint, GrowingText } from "./growing-text.tsx";

/**
 * Past this much text with no place to cut, the tail is cut anyway (at a line break, else a space):
 * the tail is parsed again on each update, so it stays a few KiB (16 KiB cost frames on a phone).
 */
const TAIL_LIMIT = 4_096;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/**
 * How much new text one frame draws, learnt as it goes. A phone lays out about 1 KB of markdown a
 * millisecond: a reply arriving faster than that (a fast model, or a burst after a stall) drew frames
 * of a second each, each leaving a bigger batch for the next. Drawn a frame's worth at a time, it
 * catches up smoothly: the budget halves after a frame that ran long, and grows by a quarter after
 * one that kept time.
 */
const DRAW_BUDGET = { first: 8_192, least: 1_024, most: 65_536 };
/** A frame longer than this missed the display's refresh. */
const LONG_FRAME_MS = 30;
/** The tail is drawn again on each update: its code is coloured once it has been still this long. */
const TAIL_HIGHLIGHT_MS = 300;

/**
 * Where a growing markdown text can be cut so that each side means what it meant together: after a
 * blank line outside a fenced code block. Lines are looked at once each, as the text grows.
 */
class BlockCuts {
  private scanned = 0;
  /** The fence of the code block the scan is in, if any. */
  fence: string | null = null;
  private fenceAtCut: string | null = null;
  private lastCut = 0;

  /** The last cut in `text` (which only grew since the last call), and the fence open there. */
  advance(text: string): { at: number; fence: string | null } {
    let lineStart = this.scanned;
    for (let end = text.indexOf("\n", lineStart); end !== -1; end = text.indexOf("\n", lineStart)) {
      const line = text.slice(lineStart, end);
      const fence = FENCE.exec(line)?.[1];
      if (this.fence) {
        if (fence && fence[0] === this.fence[0] && fence.length >= this.fence.length && line.trim() === fence) this.fence = null;
      } else if (fence) this.fence = fence;
      else if (line.trim() === "") {
        this.lastCut = end + 1;
        this.fenceAtCut = null;
      }
      lineStart = end + 1;
    }
    this.scanned = lineStart;
    return { at: this.lastCut, fence: this.fenceAtCut };
  }

  /** A cut made where no blank line was (the tail grew too long): lines before it are done. */
  forceCut(at: number, fence: string | null): void {
    this.lastCut = at;
    this.fenceAtCut = fence;
    this.scanned = Math.max(this.scanned, at);
  }
}

/**
 * A reply's markdown while it streams. What lies before the last blank line (outside a code block) is
 * parsed once and kept; only the tail after it is parsed again as text arrives, so each update costs
 * the tail, whatever the reply's length. An unclosed fence or list in the tail renders as what it is
 * so far. A tail that grows past 4 KiB with no blank line is cut at a line break (a code block goes on
 * in the next part, opened again).
 */
export class MarkdownText extends GrowingText {
  protected readonly className = "message-text markdown";
  private settled: HTMLDivElement | null = null;
  private tail: HTMLDivElement | null = null;
  private shown = "";
  private settledTo = 0;
  /** The fence open where the settled part ends: the tail's code block goes on. */
  private openFence: string | null = null;
  private cuts = new BlockCuts();
  private tailHighlight: ReturnType<typeof setTimeout> | undefined;
  /** The text to show, which the page may be a few frames behind (see DRAW_BUDGET). */
  private target = "";
  private nextFrame = 0;
  private budget = DRAW_BUDGET.first;
  private lastFrameAt = 0;

  override componentWillUnmount(): void {
    clearTimeout(this.tailHighlight);
    cancelAnimationFrame(this.nextFrame);
  }

  protected show(text: string): void {
    this.target = text;
    if (this.nextFrame === 0) this.drawStep();
  }

  /**
   * Draws the target, or a frame's worth more of it: the first draw is whole (a stored reply opens as
   * it is), growth at most the budget a frame, the rest in the frames after (called from a frame, it
   * learns from that frame's length). While behind, the element says so (`data-drawing`).
   */
  private readonly drawStep = (frameAt?: number) => {
    this.nextFrame = 0;
    if (frameAt !== undefined && this.lastFrameAt > 0) {
      const took = frameAt - this.lastFrameAt;
      this.budget = Math.round(Math.min(DRAW_BUDGET.most, Math.max(DRAW_BUDGET.least, took > LONG_FRAME_MS ? this.budget / 2 : this.budget * 1.25)));
    }
    this.lastFrameAt = frameAt ?? 0;
    const text = this.target;
    const growing = this.shown !== "" && text.startsWith(this.shown);
    const upTo = growing ? Math.min(text.length, this.shown.length + this.budget) : text.length;
    this.draw(upTo === text.length ? text : text.slice(0, upTo), growing);
    const behind = upTo < text.length;
    if (behind) this.nextFrame = requestAnimationFrame(this.drawStep);
    if (this.element && this.element.hasAttribute("data-drawing") !== behind) this.element.toggleAttribute("data-drawing", behind);
  };

  /** `continues`: the text starts with what is shown (checked once by the caller: a long reply's prefix is megabytes). */
  private draw(text: string, continues: boolean): void {
    if (!this.element || text === this.shown) return;
    if (!continues || !this.settled || !this.tail) this.reset();
    const cut = this.cuts.advance(text);
    if (cut.at > this.settledTo) this.settle(text, cut.at, cut.fence);
    while (text.length - this.settledTo > TAIL_LIMIT) {
      const at = this.settledTo + cutPoint(text.slice(this.settledTo), TAIL_LIMIT);
      const fenceThere = new BlockCuts();
      fenceThere.fence = this.openFence;
      fenceThere.advance(text.slice(this.settledTo, at));
      this.cuts.forceCut(at, fenceThere.fence);
      this.settle(text, at, fenceThere.fence);
    }
    const tail = this.tail!;
    const firstShown = this.shown === "";
    tail.replaceChildren(...markdownNodes(this.withFence(text.slice(this.settledTo), this.openFence)));
    this.shown = text;
    clearTimeout(this.tailHighlight);
    // A reply shown whole (read, not streamed) is coloured at once; a streaming one once it pauses.
    if (firstShown) highlightCodeIn(tail);
    else if (tail.querySelector("code[data-language]")) this.tailHighlight = setTimeout(() => highlightCodeIn(tail), TAIL_HIGHLIGHT_MS);
  }

  /** Parses text up to `at` once, into a block of its own, and keeps it. */
  private settle(text: string, at: number, fenceAfter: string | null): void {
    const part = this.withFence(text.slice(this.settledTo, at), this.openFence) + (fenceAfter ? `\n${fenceAfter}\n` : "");
    const block = document.createElement("div");
    block.append(...markdownNodes(part));
    this.settled!.append(block);
    highlightCodeIn(block);
    this.settledTo = at;
    this.openFence = fenceAfter;
  }

  private withFence(part: string, fence: string | null): string {
    return fence ? `${fence}\n${part}` : part;
  }

  private reset(): void {
    this.settled = document.createElement("div");
    this.tail = document.createElement("div");
    this.element!.replaceChildren(this.settled, this.tail);
    this.shown = "";
    this.settledTo = 0;
    this.openFence = null;
    this.cuts = new BlockCuts();
  }
}
