import { notStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { abortableSleep, SharedTimeouts } from "../../src/timing.ts";

Deno.test("SharedTimeouts: attempts started together share a signal; short timeouts get their own", () => {
  const timeouts = new SharedTimeouts();
  const first = timeouts.signal(30_000);
  strictEqual(timeouts.signal(30_000), first);
  notStrictEqual(timeouts.signal(20_000), first);
  notStrictEqual(timeouts.signal(50), timeouts.signal(50));
  strictEqual(first.aborted, false);
});

Deno.test("abortableSleep rejects at once with the abort reason and clears its timer", async () => {
  const controller = new AbortController();
  const sleeping = abortableSleep(60_000, controller.signal);
  controller.abort(new Error("stop"));
  await rejects(sleeping, /stop/);
  await rejects(abortableSleep(10, AbortSignal.abort(new Error("already"))), /already/);
});
