/** A run of output in one style: `classes` names it (`ansi-bold`, `ansi-fg-1`, …), empty for plain text. */
export interface StyledRun {
  text: string;
  classes: string;
}

/**
 * Terminal output with its ANSI colours (SGR: `ESC [ … m`) as styled runs; every other escape
 * (cursor moves, clearing, titles) is dropped, so what is left reads as the text the command wrote.
 * Output arrives in pieces: the colour in force, and an escape cut at a piece's end, carry over.
 */
export class AnsiText {
  private classes: string[] = [];
  private pending = "";

  /** The runs of one more piece of output, in the colours in force. */
  write(piece: string): StyledRun[] {
    const text = this.pending + piece;
    this.pending = "";
    const runs: StyledRun[] = [];
    let plainFrom = 0;
    const flush = (end: number) => {
      if (end > plainFrom) runs.push({ text: text.slice(plainFrom, end), classes: this.classes.join(" ") });
    };
    for (let index = text.indexOf(ESC); index !== -1; index = text.indexOf(ESC, index)) {
      const sequence = ESCAPE.exec(text.slice(index));
      if (!sequence) {
        // Cut at the end of this piece: kept for the next one. Anything else is shown as it is.
        const rest = text.slice(index);
        if (rest.length < MAX_ESCAPE && PARTIAL.test(rest)) {
          flush(index);
          this.pending = rest;
          return runs;
        }
        index++;
        continue;
      }
      flush(index);
      if (sequence[2] === "m") this.apply(sequence[1] ?? "");
      index += sequence[0].length;
      plainFrom = index;
    }
    flush(text.length);
    return runs;
  }

  /** An SGR's codes: reset, bold, dim, underline, the 16 colours (foreground and background). */
  private apply(parameters: string): void {
    const codes = parameters === "" ? [0] : parameters.split(";").map(Number);
    for (let index = 0; index < codes.length; index++) {
      const code = codes[index] ?? 0;
      if (code === 0) this.classes = [];
      else if (code === 1) this.add("ansi-bold");
      else if (code === 2) this.add("ansi-dim");
      else if (code === 4) this.add("ansi-underline");
      else if (code === 22) this.remove(/^ansi-(bold|dim)$/);
      else if (code === 24) this.remove(/^ansi-underline$/);
      else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) this.setColour("fg", code >= 90 ? code - 90 + 8 : code - 30);
      else if (code === 39) this.remove(/^ansi-fg-/);
      else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) this.setColour("bg", code >= 100 ? code - 100 + 8 : code - 40);
      else if (code === 49) this.remove(/^ansi-bg-/);
      else if (code === 38 || code === 48) index += codes[index + 1] === 5 ? 2 : 4; // 256 and true colours: not drawn
    }
  }

  private setColour(layer: "fg" | "bg", colour: number): void {
    this.remove(new RegExp(`^ansi-${layer}-`));
    this.add(`ansi-${layer}-${colour}`);
  }

  private add(name: string): void {
    if (!this.classes.includes(name)) this.classes.push(name);
  }

  private remove(pattern: RegExp): void {
    this.classes = this.classes.filter((name) => !pattern.test(name));
  }
}

// Built from strings: a control character written inside a regex literal reads as a typo to lint.
const ESC = String.fromCharCode(0x1b);
const BEL = String.fromCharCode(0x07);
/** CSI sequences (`ESC [` parameters, a final letter), OSC strings, and the two-character escapes. */
const ESCAPE = new RegExp(`^${ESC}(?:\\[([0-9;?]*)([@-~])|\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)|[@-Z\\\\-_])`);
/** The start of an escape that the next piece may end. */
const PARTIAL = new RegExp(`^${ESC}(?:\\[[0-9;?]*|\\][^${BEL}${ESC}]*)?$`);
/** An escape longer than this that never ended is not one: it is shown as text. */
const MAX_ESCAPE = 64;
