/**
 * JSON with comments and trailing commas (JSONC), the format of `gateway-api.json`: `//` and `/* *\/`
 * comments and a comma before `}` or `]` are removed, everything inside strings is kept as it is, and the
 * rest is parsed by `JSON.parse`.
 *
 * @module
 */

import { errorMessage } from "./util/error_message.ts";

/**
 * The JSON text of a JSONC document: comments replaced by spaces (so `JSON.parse` positions stay the same)
 * and trailing commas removed. Strings, including `//` and `/*` inside them, are untouched. An unterminated
 * block comment is a `SyntaxError`.
 *
 * @example
 * ```ts
 * stripJsonc('{ "url": "http://x", // a comment\n }'); // '{ "url": "http://x",             \n }' without the comma
 * ```
 */
export function stripJsonc(source: string): string {
  let out = "";
  // Index in `out` of a comma that is only followed by whitespace or comments so far.
  let pendingComma = -1;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const char = source[i];
    if (char === '"') {
      const start = i++;
      while (i < n && source[i] !== '"') i += source[i] === "\\" ? 2 : 1;
      i++;
      out += source.slice(start, i);
      pendingComma = -1;
      continue;
    }
    if (char === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? n : end;
      out += " ".repeat(stop - i);
      i = stop;
      continue;
    }
    if (char === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      if (end === -1) throw new SyntaxError(`Unterminated comment at ${position(source, i)}`);
      // Newlines are kept so that line numbers in later errors stay right.
      out += source.slice(i, end + 2).replace(/[^\n]/g, " ");
      i = end + 2;
      continue;
    }
    if (char === ",") {
      pendingComma = out.length;
    } else if ((char === "}" || char === "]") && pendingComma !== -1) {
      out = `${out.slice(0, pendingComma)} ${out.slice(pendingComma + 1)}`;
      pendingComma = -1;
    } else if (!/\s/.test(char)) {
      pendingComma = -1;
    }
    out += char;
    i++;
  }
  return out;
}

/** "line L, column C" of index `at`, both from 1. */
export function position(source: string, at: number): string {
  const before = source.slice(0, at);
  const line = before.split("\n").length;
  const column = at - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

/**
 * Parse JSONC (JSON with comments and trailing commas). Errors are `SyntaxError`s that say where when the
 * parser tells, and never quote the text (a configuration file holds keys).
 */
export function parseJsonc(source: string): unknown {
  const json = stripJsonc(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source);
  try {
    return JSON.parse(json);
  } catch (error) {
    const message = errorMessage(error);
    const at = /position (\d+)/.exec(message)?.[1];
    // V8 quotes the text around the error ('Unexpected token }, "{"key": }" is not valid JSON'): drop it.
    const what = message.replace(/ in JSON at position.*$/s, "").replace(/, ".*" is not valid JSON$/s, "");
    throw new SyntaxError(at === undefined ? what : `${what} at ${position(json, Number(at))}`);
  }
}
