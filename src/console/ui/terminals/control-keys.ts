/** The keys a phone's keyboard lacks, as the key bar offers them. */
export type BarKey = "escape" | "tab" | "left" | "up" | "right" | "down" | "pipe" | "tilde";

const ARROW_FINAL = { up: "A", down: "B", right: "C", left: "D" } as const;

const isArrow = (key: BarKey): key is keyof typeof ARROW_FINAL => key in ARROW_FINAL;

/**
 * What a key sends to the program. Arrows follow the cursor keys' mode as the program set it (`ESC O A`
 * in application mode, which full-screen programs ask for; `ESC [ A` otherwise); with Ctrl held, an
 * arrow is `ESC [ 1 ; 5 A`, as xterm sends it.
 */
export function keyInput(key: BarKey, options: { applicationCursor: boolean; control: boolean }): string {
  if (isArrow(key)) {
    if (options.control) return `\x1b[1;5${ARROW_FINAL[key]}`;
    return `\x1b${options.applicationCursor ? "O" : "["}${ARROW_FINAL[key]}`;
  }
  const plain = { escape: "\x1b", tab: "\t", pipe: "|", tilde: "~" }[key];
  return options.control ? withControl(plain) : plain;
}

/**
 * Input as typed with Ctrl held: a single letter, or one of `@ [ \ ] ^ _` and space, becomes its control
 * character (Ctrl-C is ETX, 0x03), `?` becomes DEL; anything else (a word from the keyboard's suggestions,
 * a pasted text) is sent unchanged.
 */
export function withControl(input: string): string {
  if (input === "?") return "\x7f";
  if (input === " ") return "\x00";
  if (input.length !== 1) return input;
  const code = input.toUpperCase().charCodeAt(0);
  return code >= 0x40 && code <= 0x5f ? String.fromCharCode(code - 0x40) : input;
}
