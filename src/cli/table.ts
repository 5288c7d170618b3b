/**
 * Plain-text tables and JSON output for the CLI.
 *
 * @module
 */

import type { CliIo } from "./io.ts";

/** Rows as an aligned table under a header line; null and undefined cells show as `-`. */
export function renderTable(headers: string[], rows: unknown[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(cellText))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => textWidth(row[column] ?? ""))));
  return cells
    .map((row) =>
      row.map((cell, column) => column === row.length - 1 ? cell : pad(cell, widths[column])).join("  ")
        .trimEnd()
    )
    .join("\n") + "\n";
}

function cellText(value: unknown): string {
  if (value === null || value === undefined || value === "") return "-";
  // Keep a table one line per row, whatever the server put in a name.
  return String(value).replace(/[\r\n\t]+/g, " ");
}

function textWidth(text: string): number {
  return [...text].length;
}

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - textWidth(text)));
}

/** Write a value as pretty JSON with a trailing newline. */
export function writeJson(io: CliIo, value: unknown): void {
  io.stdout(JSON.stringify(value, null, 2) + "\n");
}

/** Colour helpers that do nothing when colours are off. */
export function colors(
  enabled: boolean,
): {
  green(text: string): string;
  red(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
} {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return { green: wrap(32, 39), red: wrap(31, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}
