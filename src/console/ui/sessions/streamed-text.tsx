import { Component } from "preact";

/** A block of text that no longer changes once this long; the browser lays out only the block still growing. */
const BLOCK_CHARS = 4_096;

/** Where a growing block may be closed: after its last line break, else its last space, else anywhere. */
function closingPoint(text: string): number {
  const lineEnd = text.lastIndexOf("\n", BLOCK_CHARS);
  if (lineEnd > 0) return lineEnd + 1;
  const space = text.lastIndexOf(" ", BLOCK_CHARS);
  return space > 0 ? space + 1 : BLOCK_CHARS;
}

/**
 * Text that grows while a reply streams. Set as one text node, a long reply would be laid out again
 * from its start many times a second; here it is a run of blocks of a few KiB, of which only the last
 * grows (new text is appended to it), so each frame lays out a few KiB whatever the reply's length.
 * A block closes after a line break where it can, so the lines read as one text.
 */
export class StreamedText extends Component<{ text: string }> {
  private element: HTMLDivElement | null = null;
  private shown = "";
  private growing: HTMLDivElement | null = null;
  private growingText = "";

  override componentDidMount(): void {
    this.show(this.props.text);
  }

  override shouldComponentUpdate(next: { text: string }): boolean {
    this.show(next.text);
    return false;
  }

  private show(text: string): void {
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
      const end = closingPoint(rest);
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

  override render() {
    return (
      <div
        class="message-text"
        ref={(element) => {
          this.element = element;
        }}
      />
    );
  }
}
