// Exactly once while an update waits or runs: the inbound claim is held (renewed) by its live holder, and
// taken over within the lease (120 s) only once its holder is gone. One injected clock for everything.
import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { WebhookException } from "../../src/errors.ts";
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
  const holder = new InboundMessageClaims(store.state, now);
  const other = new InboundMessageClaims(store.state, now); // another process on the same store
  const held = await holder.hold(INSTANCE, "R1");
  strictEqual(held === null, false);
  time.now += MESSAGE_CLAIM_LEASE_MS / 2;
  await held!.renew(); // what its timer does every third of the lease
  time.now += MESSAGE_CLAIM_LEASE_MS / 2 + 1;
  strictEqual(await other.hold(INSTANCE, "R1"), null);
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
  const { bot } = stubBot({ store, now });
  const runs: string[] = [];
  bot.on("message:text", (ctx) => void runs.push(ctx.text));
  const update = inbound("after the crash", { id: "D1" });
  time.now += MESSAGE_CLAIM_LEASE_MS - 1;
  await rejects(bot.handleUpdate(update), busy);
  time.now += 1;
  await bot.handleUpdate(update);
  deepStrictEqual(runs, ["after the crash"]);
});
