import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../mod.ts";
import {
  base64Head,
  base64Size,
  fromBase64,
  fromBase64Url,
  toBase64,
  toBase64Url,
} from "../../src/util/base64.ts";
import {
  nonNegativeInteger,
  numberSetting,
  positiveInteger,
  positiveNumber,
  timerMs,
} from "../../src/util/checks.ts";
import { errorMessage } from "../../src/util/error_message.ts";
import { isRecord, nonEmptyString } from "../../src/util/json_shape.ts";
import { MAX_TIMER_MS } from "../../src/util/timers.ts";

Deno.test("number settings: the default when absent, the value when it fits, else a ConfigurationException naming it", () => {
  strictEqual(positiveNumber("Cannot create x", "pollMs", undefined, 500), 500);
  strictEqual(positiveNumber("Cannot create x", "pollMs", 0.5, 500), 0.5);
  strictEqual(nonNegativeInteger("Cannot create x", "limit", 0, 100), 0);
  strictEqual(positiveInteger("Cannot create x", "size", 7, 1, 10), 7);
  strictEqual(timerMs("Cannot create x", "delayMs", MAX_TIMER_MS, 1), 2_147_483_647);
  const cases: [() => number, string][] = [
    [
      () => positiveNumber("Cannot create x", "pollMs", 0, 500),
      'Cannot create x: "pollMs" must be a positive number, got "0"',
    ],
    [
      () => positiveNumber("Cannot create x", "pollMs", NaN, 500),
      'Cannot create x: "pollMs" must be a positive number, got "NaN"',
    ],
    [
      () => positiveNumber("Cannot create x", "pollMs", "5" as unknown as number, 500),
      'Cannot create x: "pollMs" must be a positive number, got "5"',
    ],
    [
      () => positiveInteger("Cannot create x", "size", 1.5, 1),
      'Cannot create x: "size" must be a positive integer, got "1.5"',
    ],
    [
      () => positiveInteger("Cannot create x", "size", 11, 1, 10),
      'Cannot create x: "size" must be an integer from 1 to 10, got "11"',
    ],
    [
      () => nonNegativeInteger("Cannot create x", "limit", -1, 100),
      'Cannot create x: "limit" must be a non-negative integer, got "-1"',
    ],
    [
      () => timerMs("Cannot create x", "delayMs", 2 ** 31, 1),
      'Cannot create x: "delayMs" must be a number > 0 and <= 2147483647 (ms), got "2147483648"',
    ],
    [
      () => timerMs("Cannot create x", "gapMs", -1, 1, 0),
      'Cannot create x: "gapMs" must be a number from 0 to 2147483647 (ms), got "-1"',
    ],
    [
      () => numberSetting("Cannot create x", "cap", 0, 1, { min: 1 }),
      'Cannot create x: "cap" must be a number >= 1, got "0"',
    ],
  ];
  for (const [run, message] of cases) {
    throws(run, (error: unknown) => {
      ok(error instanceof ConfigurationException);
      strictEqual(error.message, message);
      strictEqual(error.setting, message.match(/"([^"]+)"/)![1]);
      return true;
    });
  }
});

Deno.test("base64: both alphabets round-trip, and only canonical text decodes", () => {
  const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
  strictEqual(toBase64(bytes), "AAEC+vv8/f7/");
  strictEqual(toBase64Url(bytes), "AAEC-vv8_f7_");
  deepStrictEqual(fromBase64("AAEC+vv8/f7/"), bytes);
  deepStrictEqual(fromBase64Url("AAEC-vv8_f7_"), bytes);
  deepStrictEqual(fromBase64("aGk"), new Uint8Array([104, 105]));
  strictEqual(fromBase64("aGl="), null); // the same bytes spelt with a non-zero unused bit
  strictEqual(fromBase64("aG k="), null);
  strictEqual(fromBase64("a"), null);
  strictEqual(fromBase64Url("AAEC+vv8"), null);
  strictEqual(base64Size("aGVsbG8="), 5);
  deepStrictEqual(base64Head("aGVsbG8gd29ybGQ=", 3), new TextEncoder().encode("hel"));
  strictEqual(base64Head("!!!!aGVsbG8=", 3), null);
  // Large inputs go through in chunks (no argument-count limit).
  const big = new Uint8Array(200_000).map((_, i) => i % 256);
  deepStrictEqual(fromBase64(toBase64(big)), big);
});

Deno.test("json shape and error text helpers", () => {
  strictEqual(isRecord({}), true);
  strictEqual(isRecord([]), false);
  strictEqual(isRecord(null), false);
  strictEqual(nonEmptyString("x"), "x");
  strictEqual(nonEmptyString(""), undefined);
  strictEqual(nonEmptyString(1), undefined);
  strictEqual(errorMessage(new RangeError("too big")), "too big");
  strictEqual(errorMessage(42), "42");
});
