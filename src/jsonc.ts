/**
 * The JSON text of a JSONC document (`gateway-api.json`): comments become spaces (so `JSON.parse` positions
 * stay the same), trailing commas go, strings are untouched; an unterminated comment is a `SyntaxError`.
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
 * Parse JSONC. A `SyntaxError` gives line and column and never quotes the text: a configuration file holds
 * keys, and V8's own message quotes the text around the error.
 */
export function parseJsonc(source: string): unknown {
  const json = stripJsonc(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source);
  try {
    return JSON.parse(json);
  } catch {
    // V8's message is dropped whole: our own scan says where, in words that name no character of the text.
    const found = findSyntaxError(json);
    throw new SyntaxError(
      found === undefined ? "Not valid JSON" : `${found.reason} at ${position(json, found.at)}`,
    );
  }
}

/** Where JSON text stops being JSON, and why. */
interface SyntaxProblem {
  at: number;
  reason: string;
}

/** What the scan expects next; `end` is after the top-level value, `next` a `,` or the closing bracket. */
type Expected = "value" | "valueOrEnd" | "key" | "keyOrEnd" | "colon" | "next" | "end";

/** Where the scan goes on: the index and what it expects there. */
interface Step {
  at: number;
  expected: Expected;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The first syntax error of `json`, found by one scan with an explicit stack (no recursion, so depth is no
 * limit). Undefined when the scan finds none.
 */
export function findSyntaxError(json: string): SyntaxProblem | undefined {
  const stack: string[] = [];
  let step: Step = { at: 0, expected: "value" };
  while (true) {
    let i = step.at;
    while (i < json.length && " \t\n\r".includes(json[i])) i++;
    if (i >= json.length) {
      return step.expected === "end" ? undefined : { at: i, reason: "Unexpected end of JSON input" };
    }
    const next = advance(json, i, step.expected, stack);
    if ("reason" in next) return next;
    step = next;
  }
}

/** One token at `i` (not whitespace) when `expected` is what may come there. */
function advance(json: string, i: number, expected: Expected, stack: string[]): Step | SyntaxProblem {
  const char = json[i];
  const afterValue = (at: number): Step => ({ at, expected: stack.length === 0 ? "end" : "next" });
  const close = (): Step => {
    stack.pop();
    return afterValue(i + 1);
  };
  switch (expected) {
    case "end":
      return { at: i, reason: "Unexpected non-whitespace character after JSON" };
    case "colon":
      return char === ":"
        ? { at: i + 1, expected: "value" }
        : { at: i, reason: "Expected ':' after property name in JSON" };
    case "next": {
      const object = stack.at(-1) === "{";
      if (char === ",") return { at: i + 1, expected: object ? "key" : "value" };
      if (char === (object ? "}" : "]")) return close();
      const reason = object
        ? "Expected ',' or '}' after property value"
        : "Expected ',' or ']' after array element";
      return { at: i, reason };
    }
    case "key":
    case "keyOrEnd": {
      if (char === "}" && expected === "keyOrEnd") return close();
      if (char !== '"') {
        const reason = expected === "key"
          ? "Expected double-quoted property name"
          : "Expected property name or '}'";
        return { at: i, reason };
      }
      const end = stringEnd(json, i);
      return typeof end === "number" ? { at: end, expected: "colon" } : end;
    }
    default: {
      if (char === "]" && expected === "valueOrEnd") return close();
      if (char === "{" || char === "[") {
        stack.push(char);
        return { at: i + 1, expected: char === "{" ? "keyOrEnd" : "valueOrEnd" };
      }
      const end = scalarEnd(json, i);
      return typeof end === "number" ? afterValue(end) : end;
    }
  }
}

/** The index after the string, literal or number at `i`, or what is wrong with it. */
function scalarEnd(json: string, i: number): number | SyntaxProblem {
  if (json[i] === '"') return stringEnd(json, i);
  for (const word of ["true", "false", "null"]) {
    if (json.startsWith(word, i)) return i + word.length;
  }
  if (json[i] === "-" && !/[0-9]/.test(json[i + 1] ?? "")) {
    return { at: i + 1, reason: "No number after minus sign in JSON" };
  }
  NUMBER.lastIndex = i;
  const number = NUMBER.exec(json);
  return number !== null ? i + number[0].length : { at: i, reason: "Unexpected character" };
}

/** The index after the string that starts at `start`, or what is wrong with it. */
function stringEnd(json: string, start: number): number | SyntaxProblem {
  let i = start + 1;
  while (i < json.length) {
    const char = json[i];
    if (char === '"') return i + 1;
    if (char.charCodeAt(0) < 0x20) {
      return { at: i, reason: "Bad control character in string literal in JSON" };
    }
    if (char !== "\\") {
      i++;
      continue;
    }
    const escaped = json[i + 1] ?? "";
    if (escaped !== "" && '"\\/bfnrt'.includes(escaped)) i += 2;
    else if (escaped === "u" && /^[0-9a-fA-F]{4}$/.test(json.slice(i + 2, i + 6))) i += 6;
    else return { at: i, reason: "Bad escaped character in JSON" };
  }
  return { at: start, reason: "Unterminated string in JSON" };
}
