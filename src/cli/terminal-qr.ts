import { encode } from "uqr";

/** ANSI colours: black and white backgrounds and foregrounds, and the reset. */
const FOREGROUND = { dark: "30", light: "97" } as const;
const BACKGROUND = { dark: "40", light: "107" } as const;
const RESET = "\u001b[0m";

/**
 * A QR code of `text` for a terminal: two rows of modules per line (the upper half block's colour
 * is the top module, its background the bottom one), in explicit black on white so that a phone
 * reads it on a dark terminal as on a light one, with the quiet zone scanners need around it.
 */
export function terminalQr(text: string): string {
  const { data } = encode(text, { ecc: "M", border: 2 });
  const shade = (dark: boolean | undefined) => (dark ? "dark" : "light");
  const lines: string[] = [];
  for (let row = 0; row < data.length; row += 2) {
    const top = data[row]!;
    const bottom = data[row + 1];
    let line = "";
    let colours = "";
    for (let column = 0; column < top.length; column++) {
      const wanted = `${FOREGROUND[shade(top[column])]};${BACKGROUND[shade(bottom?.[column])]}`;
      // A colour is said only where it changes: a 60-module code stays a few KB.
      if (wanted !== colours) line += `\u001b[${wanted}m`;
      colours = wanted;
      line += "▀";
    }
    lines.push(line + RESET);
  }
  return `${lines.join("\n")}\n`;
}
