// Exactly once while an update waits or runs: the inbound claim is held (renewed) by its live holder, and
// taken over only once another process saw it unchanged for the lease (120 s) on its own monotonic clock.
// One injected wall clock for every collaborator of a process; the monotonic clock and the renewal timer
// injected too.
import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { Bot } from "../../src/bot/mod.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { WebhookException } from "../../src/errors.ts";
import { MemoryState } from "../../src/backends/memory/state.ts";
import type { StateStore } from "../../src/store/state.ts";
import { InboundMessageClaims, MESSAGE_CLAIM_LEASE_MS } from "../../src/webhooks/message_claims.ts";
import { gate, inbound, INSTANCE, sharedLikeStore, stubBot } from "../helpers/bot.ts";

const busy = (e: unknown) => e instanceof WebhookException && e.status === 503;

function clock() {
  const time = { now: 1_700_000_000_000 };
  return { time, now: () => time.now };
}

Deno.test("inbound claim: a redelivery after a clock jump past 120 s while the update runs does not run it again", async () => {
  const { time, now } = clock();
  const { bot, stub } = stubBot({ store: new MemoryStore({ now }), now });
  const hold = gate();
  const started = gate();
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    runs++;
    started.open();
    await hold.promise;
    await ctx.reply("charged");
  });
  const update = inbound("charge the card", { id: "C1" });
  const first = bot.handleUpdate(update);
  await started.promise;
  time.now += MESSAGE_CLAIM_LEASE_MS + 10_000;
  await rejects(bot.handleUpdate(update), busy); // still running: the server retries later
  hold.open();
  await first;
  await bot.handleUpdate(update); // handled: a duplicate
  strictEqual(runs, 1);
  deepStrictEqual(stub.texts(), ["charged"]);
});

Deno.test("inbound claim: a redelivery after a clock jump past 120 s while the update waits in its chat's line does not run it again", async () => {
  const { time, now } = clock();
  const { bot } = stubBot({ store: new MemoryStore({ now }), now });
  const hold = gate();
  const started = gate();
  const runs: string[] = [];
  bot.on("message:text", async (ctx) => {
    runs.push(ctx.text);
    if (ctx.text === "first") {
      started.open();
      await hold.promise;
    }
  });
  const first = bot.handleUpdate(inbound("first", { id: "W1" }));
  await started.promise;
  const waiting = inbound("second", { id: "W2" });
  const second = bot.handleUpdate(waiting); // waits for "first" to end
  time.now += MESSAGE_CLAIM_LEASE_MS * 3;
  await rejects(bot.handleUpdate(waiting), busy);
  hold.open();
  await Promise.all([first, second]);
  await bot.handleUpdate(waiting);
  deepStrictEqual(runs, ["first", "second"]);
});

Deno.test("inbound claim: a live holder in another process renews its claim, so a clock past the lease does not free it", async () => {
  const { time, now } = clock();
  const store = sharedLikeStore(now);
  const mono = { now: 0 };
  const options = { monotonic: () => mono.now, every: () => () => {} }; // renewals by hand
  const holder = new InboundMessageClaims(store.state, now, options);
  const other = new InboundMessageClaims(store.state, now, options); // another process on the same store
  const held = await holder.hold(INSTANCE, "R1");
  strictEqual(held === null, false);
  strictEqual(await other.hold(INSTANCE, "R1"), null); // seen: the staleness is measured from here
  for (let i = 0; i < 6; i++) {
    time.now += MESSAGE_CLAIM_LEASE_MS / 2;
    mono.now += MESSAGE_CLAIM_LEASE_MS / 2;
    await held!.renew(); // what its timer does every third of the lease
    strictEqual(await other.hold(INSTANCE, "R1"), null);
  }
  strictEqual(await other.state(INSTANCE, "R1"), "processing");
  await held!.complete();
  strictEqual(await other.state(INSTANCE, "R1"), "done");
});

Deno.test("inbound claim: a holder that is gone (killed mid-handler) is taken over once the lease ran out, not before", async () => {
  const { time, now } = clock();
  const store = sharedLikeStore(now);
  // A process claimed the message and was killed: nothing renews or completes its claim.
  const dead = new InboundMessageClaims(store.state, now);
  const held = await dead.hold(INSTANCE, "D1");
  held!.abandon(); // its timer dies with it
  const mono = { now: 0 }; // the bot's process: staleness on its own monotonic clock, from its first look
  const { bot } = stubBot({ store, now, claims: { monotonic: () => mono.now } });
  const runs: string[] = [];
  bot.on("message:text", (ctx) => void runs.push(ctx.text));
  const update = inbound("after the crash", { id: "D1" });
  time.now += MESSAGE_CLAIM_LEASE_MS * 3; // the wall clock does not decide
  await rejects(bot.handleUpdate(update), busy); // first look
  mono.now += MESSAGE_CLAIM_LEASE_MS - 1;
  await rejects(bot.handleUpdate(update), busy);
  mono.now += 1;
  await bot.handleUpdate(update);
  deepStrictEqual(runs, ["after the crash"]);
});

/**
 * A process on a store shared with others: its own wall clock (which the store's expiry is judged on while
 * it calls, as Redis and KV judge it on the caller's), its own monotonic clock, and its renewal timer, fired
 * by hand (`tick`).
 */
interface Process {
  wall: number;
  mono: number;
  claims: InboundMessageClaims;
  tick(): Promise<void>;
}

function twoProcesses(): [Process, Process] {
  let calling: Process | undefined;
  const shared = new MemoryState({ now: () => calling!.wall });
  const make = (): Process => {
    const renewals = new Set<() => Promise<void>>();
    const as = <T>(run: () => Promise<T>): Promise<T> => {
      calling = process;
      return run();
    };
    const view: StateStore = {
      get: (namespace, key) => as(() => shared.get(namespace, key)),
      set: (namespace, key, value, options) => as(() => shared.set(namespace, key, value, options)),
      delete: (namespace, key, options) => as(() => shared.delete(namespace, key, options)),
      list: (namespace, options) => as(() => shared.list(namespace, options)),
    };
    const process: Process = {
      wall: 1_700_000_000_000,
      mono: 5_000,
      claims: undefined!,
      tick: async () => void await Promise.all([...renewals].map((renew) => renew())),
    };
    process.claims = new InboundMessageClaims(view, () => process.wall, {
      monotonic: () => process.mono,
      every: (_ms, renew) => (renewals.add(renew), () => renewals.delete(renew)),
    });
    return process;
  };
  return [make(), make()];
}

/** Let `ms` of real time pass for both processes: both clocks move, the holder's renewals fire on time. */
async function pass(processes: Process[], ms: number): Promise<void> {
  for (let step = 0; step < ms; step += MESSAGE_CLAIM_LEASE_MS / 3) {
    for (const p of processes) {
      p.wall += MESSAGE_CLAIM_LEASE_MS / 3;
      p.mono += MESSAGE_CLAIM_LEASE_MS / 3;
    }
    for (const p of processes) await p.tick();
  }
}

Deno.test("inbound claim: another process's wall clock stepped 5 minutes forward does not free a live holder's claim: its redelivery is busy, the message runs once", async () => {
  const [holder, other] = twoProcesses();
  const hold = gate();
  const started = gate();
  let runs = 0;
  const work = async () => {
    if (++runs > 1) return; // a second run is the failure: it must not wait too
    started.open();
    await hold.promise;
  };
  const first = holder.claims.once(INSTANCE, "J1", work);
  await started.promise;
  other.wall += 5 * 60_000; // NTP steps its clock: the stored lease looks long expired there
  strictEqual(await other.claims.once(INSTANCE, "J1", work), "busy");
  for (let i = 0; i < 6; i++) { // the server retries for 4 minutes while the holder runs and renews
    await pass([holder, other], 40_000);
    strictEqual(await other.claims.once(INSTANCE, "J1", work), "busy", `retry ${i + 1}`);
  }
  hold.open();
  strictEqual(await first, "processed");
  strictEqual(await other.claims.once(INSTANCE, "J1", work), "duplicate");
  strictEqual(runs, 1);
});

Deno.test("inbound claim: a killed holder's claim is taken over once another process has seen it unchanged for the lease on its own monotonic clock, not before, whatever the wall clocks say", async () => {
  const [dead, other] = twoProcesses();
  const held = await dead.claims.hold(INSTANCE, "K1");
  held!.abandon(); // killed: nothing renews or completes its claim
  const runs: string[] = [];
  const work = () => void runs.push("K1");
  other.wall += 10 * 60_000; // past every wall-clock lease: not what decides
  strictEqual(await other.claims.once(INSTANCE, "K1", work), "busy"); // first look: the staleness starts here
  other.mono += MESSAGE_CLAIM_LEASE_MS - 1;
  strictEqual(await other.claims.once(INSTANCE, "K1", work), "busy");
  other.mono += 1;
  strictEqual(await other.claims.once(INSTANCE, "K1", work), "processed");
  strictEqual(await other.claims.once(INSTANCE, "K1", work), "duplicate");
  deepStrictEqual(runs, ["K1"]);
});

Deno.test("inbound claim: a renewal seen between two looks starts the staleness again", async () => {
  const [holder, other] = twoProcesses();
  const held = await holder.claims.hold(INSTANCE, "S1");
  strictEqual(await other.claims.hold(INSTANCE, "S1"), null); // first look
  other.mono += MESSAGE_CLAIM_LEASE_MS - 1;
  await holder.tick(); // one late renewal, then the holder is killed
  held!.abandon();
  other.mono += 1;
  strictEqual(await other.claims.hold(INSTANCE, "S1"), null); // a new version: seen for 0 ms
  other.mono += MESSAGE_CLAIM_LEASE_MS;
  const taken = await other.claims.hold(INSTANCE, "S1");
  strictEqual(taken === null, false);
  await taken!.complete();
  strictEqual(await holder.claims.state(INSTANCE, "S1"), "done");
});

Deno.test("inbound claim: a renewal due while the previous one is still in flight (a slow store) does not stop the renewals", async () => {
  const [holder, other] = twoProcesses();
  const held = await holder.claims.hold(INSTANCE, "O1");
  await Promise.all([held!.renew(), held!.renew()]); // the timer fired again before the store answered
  strictEqual(await other.claims.hold(INSTANCE, "O1"), null); // first look
  other.mono += MESSAGE_CLAIM_LEASE_MS - 1;
  await holder.tick(); // the holder is alive and renews
  other.mono += 1;
  strictEqual(await other.claims.hold(INSTANCE, "O1"), null);
  await held!.complete();
});

Deno.test("inbound claim: a misspelt or wrong claims option is refused when the bot or processor is built", () => {
  throws(
    () => new Bot({ claims: { leaseMS: 5_000 } as never }),
    { message: 'new Bot: "claims.leaseMS" is not an option; did you mean "claims.leaseMs"?' },
  );
  throws(
    () => new WebhookProcessor({ claims: { leaseMs: 0 } }),
    {
      message:
        'Invalid webhook processor options: "claims.leaseMs" must be an integer number of ms from 3, got "0"',
    },
  );
  throws(
    () => new InboundMessageClaims(new MemoryState(), Date.now, { monotonic: 5 as never }),
    { message: 'new InboundMessageClaims: "options.monotonic" must be a function' },
  );
});
