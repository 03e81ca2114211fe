import { cutPoint, GrowingText } from "./growing-text.tsx";

/** A block of text that no longer changes once this long; the browser lays out only the block still growing. */
const BLOCK_CHARS = 4_096;

/**
 * Text that grows while a reply streams. Set as one text node, a long reply would be laid out again
 * from its start many times a second; here it is a run of blocks of a few KiB, of which only the last
 * grows (new text is appended to it), so each frame lays out a few KiB whatever the reply's length.
 * A block closes after a line break where it can, so the lines read as one text.
 */
export class StreamedText extends GrowingText {
  protected readonly className = "message-text";
  private shown = "";
  private growing: HTMLDivElement | null = null;
  private growingText = "";

  protected show(text: string): void {
    if (!this.element || text === this.shown) return;
    if (!text.startsWith(this.shown)) {
      this.element.replaceChildren();
      this.growing = null;
      this.growingText = "";
      this.shown = "";
    }
    this.append(text.slice(this.shown.length));
    this.shown = text;
  }

  private append(added: string): void {
    let rest = this.growingText + added;
    while (rest.length > BLOCK_CHARS) {
      const end = cutPoint(rest, BLOCK_CHARS);
      this.setGrowing(rest.slice(0, end));
      this.growing = null;
      rest = rest.slice(end);
    }
    this.setGrowing(rest);
  }

  private setGrowing(text: string): void {
    if (!this.growing) {
      this.growing = document.createElement("div");
      this.element!.append(this.growing);
      this.growingText = "";
    }
    if (text.startsWith(this.growingText)) this.growing.append(text.slice(this.growingText.length));
    else this.growing.textContent = text;
    this.growingText = text;
  }
}
