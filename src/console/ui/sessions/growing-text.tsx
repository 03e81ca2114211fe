import { Component } from "preact";

/** Where a growing text may be cut near `limit`: after its last line break before it, else its last space, else at it. */
export function cutPoint(text: string, limit: number): number {
  const lineEnd = text.lastIndexOf("\n", limit);
  if (lineEnd > 0) return lineEnd + 1;
  const space = text.lastIndexOf(" ", limit);
  return space > 0 ? space + 1 : limit;
}

/**
 * Text that grows while a reply streams, drawn by the subclass straight into its element: Preact
 * renders the element once and never again, and each new text is handed to `show`.
 */
export abstract class GrowingText extends Component<{ text: string }> {
  protected element: HTMLDivElement | null = null;

  protected abstract readonly className: string;
  protected abstract show(text: string): void;

  override componentDidMount(): void {
    this.show(this.props.text);
  }

  override shouldComponentUpdate(next: { text: string }): boolean {
    this.show(next.text);
    return false;
  }

  override render() {
    return (
      <div
        class={this.className}
        ref={(element) => {
          this.element = element;
        }}
      />
    );
  }
}
