import jsQR from "jsqr";

const PIXELS_PER_MODULE = 4;
/** An SGR colour escape, or a half block (built from a string: lint refuses control characters in a regex literal). */
const PIECE = new RegExp(`${String.fromCharCode(0x1b)}\\[([0-9;]*)m|(▀)`, "g");

/**
 * Reads back a QR code printed for a terminal (src/cli/terminal-qr.ts: upper half blocks, the top
 * module in the foreground colour, the bottom one in the background) and decodes it as a phone's
 * camera would, with a QR reader of its own (jsQR). Returns the text, or null when none is found.
 */
export function readTerminalQr(printed: string): string | null {
  const rows: boolean[][] = [];
  let dark = { top: false, bottom: false };
  for (const line of printed.split("\n")) {
    if (!line.includes("▀")) continue;
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (const [, codes, block] of line.matchAll(PIECE)) {
      if (codes !== undefined) {
        const [foreground, background] = codes.split(";");
        if (foreground && background) dark = { top: foreground === "30", bottom: background === "40" };
      } else if (block) {
        top.push(dark.top);
        bottom.push(dark.bottom);
      }
    }
    rows.push(top, bottom);
  }
  if (rows.length === 0) return null;
  const size = rows[0]!.length * PIXELS_PER_MODULE;
  const height = rows.length * PIXELS_PER_MODULE;
  const pixels = new Uint8ClampedArray(size * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < size; x++) {
      const value = rows[Math.floor(y / PIXELS_PER_MODULE)]![Math.floor(x / PIXELS_PER_MODULE)] ? 0 : 255;
      pixels.set([value, value, value, 255], (y * size + x) * 4);
    }
  }
  return jsQR(pixels, size, height)?.data ?? null;
}
