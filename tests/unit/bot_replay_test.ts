// The replay engine of conversations, on plain strings as updates: replay returns logged results without
// running them again, a wait past the log stops the run, an offered update is taken or skipped.
import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import {
  type LogEntry,
  Replay,
  ReplayMismatchError,
  type RunOutcome,
} from "../../src/bot/conversation/replay.ts";

interface Effects {
  sent: string[];
}

// A two-question dialogue: everything it does to the outside world goes through `replay.call`.
function dialogue(replay: Replay<string>, effects: Effects) {
  return async () => {
    await replay.call("reply", () => effects.sent.push("name?"));
    const name = await replay.wait({ accepts: (u) => u.startsWith("text:") });
    const id = await replay.call("external", () => `id-${name.length}`);
    await replay.call("reply", () => effects.sent.push(`age, ${name}? (${id})`));
    const age = await replay.wait({ accepts: (u) => /^text:\d+$/.test(u), maxMs: 1000 });
    await replay.call("reply", () => effects.sent.push(`done ${age}`));
  };
}

function run(log: readonly LogEntry[], offer: string | undefined, effects: Effects, now = 0) {
  const replay = new Replay<string>({
    log,
    offer,
    rebuild: (stored) => String(stored),
    store: (update) => update,
    now: () => now,
  });
  return replay.start(dialogue(replay, effects));
}

function waiting(outcome: RunOutcome<string>): LogEntry[] {
  if (outcome.kind !== "waiting") throw new Error(`expected waiting, got ${outcome.kind}`);
  return outcome.log;
}

Deno.test("replay: each step runs once across runs; the log holds waits and call results", async () => {
  const effects: Effects = { sent: [] };
  const first = waiting(await run([], undefined, effects));
  deepStrictEqual(effects.sent, ["name?"]);
  deepStrictEqual(first, [{ call: "reply", value: 1 }]);

  const secondOutcome = await run(first, "text:Ana", effects, 5000);
  const second = waiting(secondOutcome);
  deepStrictEqual(effects.sent, ["name?", "age, text:Ana? (id-8)"]);
  strictEqual(secondOutcome.kind === "waiting" && secondOutcome.deadline, 6000);
  deepStrictEqual(second, [
    { call: "reply", value: 1 },
    { wait: "text:Ana" },
    { call: "external", value: "id-8" },
    { call: "reply", value: 2 },
  ]);

  const last = await run(second, "text:31", effects);
  deepStrictEqual(last, { kind: "done" });
  deepStrictEqual(effects.sent, ["name?", "age, text:Ana? (id-8)", "done text:31"]);
});

Deno.test("replay: an update the wait does not accept is skipped and nothing runs or changes", async () => {
  const effects: Effects = { sent: [] };
  const log = waiting(await run([], undefined, effects));
  const name = waiting(await run(log, "text:Ana", effects));
  effects.sent.length = 0;
  const outcome = await run(name, "text:not a number", effects);
  strictEqual(outcome.kind, "skipped");
  deepStrictEqual(effects.sent, []);
});

Deno.test("replay: a logged error is thrown again on replay without running the call", async () => {
  let runs = 0;
  const make = (log: readonly LogEntry[], offer?: string) => {
    const replay = new Replay<string>({ log, offer, rebuild: String, store: (u) => u, now: () => 0 });
    return replay.start(async () => {
      const caught = await replay.call("external", () => {
        runs++;
        throw new RangeError("no stock");
      }).catch((error: Error) => `${error.name}: ${error.message}`);
      await replay.wait({ accepts: () => true });
      await replay.call("reply", () => caught);
    });
  };
  const first = waiting(await make([]));
  deepStrictEqual(first, [{ call: "external", error: { name: "RangeError", message: "no stock" } }]);
  const done = await make(first, "text:ok");
  deepStrictEqual(done, { kind: "done" });
  strictEqual(runs, 1);
});

Deno.test("replay: a log that does not fit the function is refused", async () => {
  const replay = new Replay<string>({
    log: [{ wait: "text:x" }],
    rebuild: String,
    store: (u) => u,
    now: () => 0,
  });
  await rejects(
    replay.start(async () => {
      await replay.call("reply", () => 1);
    }),
    ReplayMismatchError,
  );
});

Deno.test("replay: exit ends the run as done; a thrown function rejects", async () => {
  const exiting = new Replay<string>({ log: [], rebuild: String, store: (u) => u, now: () => 0 });
  deepStrictEqual(await exiting.start(() => exiting.exit()), { kind: "done" });
  const throwing = new Replay<string>({ log: [], rebuild: String, store: (u) => u, now: () => 0 });
  await rejects(throwing.start(() => Promise.reject(new Error("boom"))), /boom/);
});
