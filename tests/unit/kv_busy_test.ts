import { rejects, strictEqual } from "node:assert/strict";
import { isBusy, openKvWhenFree, withBusyRetry } from "../../src/backends/kv/busy.ts";

function busy(): Error {
  return new TypeError("database is locked");
}

Deno.test("withBusyRetry: a busy write is tried again until it goes through", async () => {
  let calls = 0;
  const waits: number[] = [];
  const result = await withBusyRetry(() => {
    calls++;
    return calls < 4 ? Promise.reject(busy()) : Promise.resolve("written");
  }, { sleep: (ms) => (waits.push(ms), Promise.resolve()), now: () => 0 });
  strictEqual(result, "written");
  strictEqual(calls, 4);
  strictEqual(waits.length, 3);
  // Jittered: round n waits less than min(maxBackoff, 2^n) ms.
  waits.forEach((ms, round) => strictEqual(ms >= 0 && ms < 2 ** round, true));
});

Deno.test("withBusyRetry: any other error is thrown at once, without a retry", async () => {
  let calls = 0;
  await rejects(
    withBusyRetry(() => (calls++, Promise.reject(new RangeError("value too large")))),
    RangeError,
  );
  strictEqual(calls, 1);
});

Deno.test("withBusyRetry: gives up with the busy error once the deadline has passed", async () => {
  let t = 0;
  let calls = 0;
  await rejects(
    withBusyRetry(() => (calls++, Promise.reject(busy())), {
      deadlineMs: 100,
      now: () => t,
      sleep: () => {
        t += 30;
        return Promise.resolve();
      },
    }),
    /database is locked/,
  );
  // Tries at t = 0, 30, 60, 90, 120: the fifth is past the deadline and rethrows.
  strictEqual(calls, 5);
});

Deno.test("isBusy recognizes SQLite's busy errors only", () => {
  strictEqual(isBusy(new TypeError("database is locked")), true);
  strictEqual(isBusy(new Error("SQLITE_BUSY: database is busy")), true);
  strictEqual(isBusy(new Error("value too large")), false);
  strictEqual(isBusy("database is locked"), false);
});

Deno.test("openKvWhenFree: an open that meets a locked database is tried again", async () => {
  const original = Deno.openKv;
  let calls = 0;
  Object.defineProperty(Deno, "openKv", {
    value: (path?: string) => ++calls < 3 ? Promise.reject(busy()) : original(path),
    configurable: true,
  });
  try {
    const kv = await openKvWhenFree(":memory:", { sleep: () => Promise.resolve() });
    strictEqual(calls, 3);
    kv.close();
  } finally {
    Object.defineProperty(Deno, "openKv", { value: original, configurable: true });
  }
});
