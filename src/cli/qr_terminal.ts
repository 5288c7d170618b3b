/**
 * QR codes drawn with Unicode half blocks, two modules per character row, so a WhatsApp pairing code
 * (about 240 characters, a 57×57 symbol) fits in 61 columns and 31 lines.
 *
 * The encoder is `qrcode-generator` (npm, MIT, no dependencies): a CLI-only dependency, never loaded by
 * `mod.ts`.
 *
 * @module
 */

import qrcode from "qrcode-generator";

/** How to draw the symbol. */
export interface QrRenderOptions {
  /**
   * `ansi` (default): black modules on a white background with ANSI colours, readable on any terminal
   * theme. `plain`: no escape codes; light modules are drawn as blocks, which suits the usual light text
   * on a dark background (the convention of terminal QR tools).
   */
  style?: "ansi" | "plain";
  /** Light border around the symbol, in modules (default 2; the standard asks 4, phones read 2). */
  margin?: number;
}

/** The dark/light matrix of a QR code for `text` (byte mode, UTF-8, error correction L, smallest version). */
export function qrMatrix(text: string): boolean[][] {
  const qr = qrcode(0, "L");
  // The library maps each UTF-16 unit to one byte; hand it UTF-8 bytes as a binary string instead.
  const bytes = new TextEncoder().encode(text);
  qr.addData(String.fromCharCode(...bytes), "Byte");
  qr.make();
  const size = qr.getModuleCount();
  return Array.from(
    { length: size },
    (_, row) => Array.from({ length: size }, (_, col) => qr.isDark(row, col)),
  );
}

/** Render `text` as a scannable QR code for a terminal, one string with a trailing newline. */
export function renderQr(text: string, options: QrRenderOptions = {}): string {
  const matrix = qrMatrix(text);
  const margin = options.margin ?? 2;
  const size = matrix.length + margin * 2;
  const dark = (row: number, col: number) => {
    const r = row - margin;
    const c = col - margin;
    return r >= 0 && c >= 0 && r < matrix.length && c < matrix.length && matrix[r][c];
  };
  const ansi = (options.style ?? "ansi") === "ansi";
  const lines: string[] = [];
  for (let row = 0; row < size; row += 2) {
    let line = "";
    for (let col = 0; col < size; col++) {
      // In ANSI style the block is the dark module (black on white); in plain style it is the light one.
      const top = ansi ? dark(row, col) : !dark(row, col);
      const bottom = row + 1 < size ? (ansi ? dark(row + 1, col) : !dark(row + 1, col)) : !ansi;
      line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " ";
    }
    lines.push(ansi ? `\x1b[30;107m${line}\x1b[0m` : line);
  }
  return lines.join("\n") + "\n";
}
