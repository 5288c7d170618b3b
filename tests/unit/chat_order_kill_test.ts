// Per-chat order across processes when a process holding a chat's turn dies (SIGKILL): its other tickets of
// the chat (updates waiting behind the turn, redeliveries whose give-up it had not written yet) die with it.
import { deepStrictEqual, rejects } from "node:assert/strict";
import { type ArrivalSlot, ChatOrder } from "../../src/bot/chat_order.ts";
import { ANA, INSTANCE, sharedLikeStore } from "../helpers/bot.ts";
import { overriding } from "../fixtures/tasks_fixtures.ts";

const KEY = `${INSTANCE}/${ANA}`;

function ticketOf(slot: ArrivalSlot): Promise<number> {
  return (slot as unknown as { taken: Promise<number> }).taken;
}

Deno.test("chat order (shared store): a killed process's waiting tickets are skipped with its turn, after one lease", async () => {
  let clock = 1_000_000;
  const now = () => clock;
  const state = sharedLikeStore(now).state;
  const looks: number[] = [];
  const sleep = (ms: number) => {
    looks.push(ms);
    clock += ms;
    return Promise.resolve();
  };
  const options = { now, sleep, leaseMs: 5_000, pollMs: 50 };
  const dead = new ChatOrder(state, options); // the process that is killed: it takes tickets, then nothing
  const live = new ChatOrder(state, options);
  // Tickets alternate: the dead process's turn (0), a live update (1), the dead process's waiter (2), and the
  // dead process's refused redelivery (3: its give-up was never written), then a live update (4).
  const tickets = [];
  const mine: ArrivalSlot[] = [];
  for (const order of [dead, live, dead, dead, live]) {
    const slot = order.arrive(INSTANCE, ANA);
    if (order === live) mine.push(slot);
    tickets.push(await ticketOf(slot));
  }
  deepStrictEqual(tickets, [0, 1, 2, 3, 4]);
  const first = await live.enter(INSTANCE, ANA, mine[0]);
  deepStrictEqual(looks.length, 100); // one lease looked through: the dead turn skipped
  await first.leave();
  const second = await live.enter(INSTANCE, ANA, mine[1]);
  deepStrictEqual(looks.length, 100); // the dead process's other tickets went with its turn: no second lease
  await second.leave();
  deepStrictEqual(await state.get("bot_chat_order", KEY), null); // nothing left behind
});

Deno.test("chat order (shared store): a waiter that fails (its look at the line threw) gives its ticket up", async () => {
  let clock = 1_000_000;
  const now = () => clock;
  const inner = sharedLikeStore(now).state;
  let failLook = false;
  const state = overriding(inner, {
    get: <T>(namespace: string, key: string) => {
      if (failLook) return (failLook = false, Promise.reject(new Error("store down")));
      return inner.get<T>(namespace, key);
    },
  });
  const looks: number[] = [];
  const sleep = (ms: number) => {
    looks.push(ms);
    clock += ms;
    return Promise.resolve();
  };
  const order = new ChatOrder(state, { now, sleep, leaseMs: 5_000, pollMs: 50 });
  const holder = await order.enter(INSTANCE, ANA); // ticket 0
  const failing = order.arrive(INSTANCE, ANA); // ticket 1
  const next = order.arrive(INSTANCE, ANA); // ticket 2
  await ticketOf(next);
  failLook = true;
  await rejects(order.enter(INSTANCE, ANA, failing), /store down/);
  await holder.leave();
  const turn = await order.enter(INSTANCE, ANA, next);
  deepStrictEqual(looks.length, 0); // ticket 1 was given up: no lease waited for it
  await turn.leave();
  deepStrictEqual(await state.get("bot_chat_order", KEY), null);
});

Deno.test("chat order (shared store): settled() waits for the places given up after their answers", async () => {
  const state = sharedLikeStore(() => 1_000).state;
  const order = new ChatOrder(state, {
    now: () => 1_000,
    sleep: () => Promise.resolve(),
    leaseMs: 5_000,
    pollMs: 50,
  });
  const holder = await order.enter(INSTANCE, ANA); // ticket 0
  const refused = order.arrive(INSTANCE, ANA); // ticket 1, refused: its place given up after its answer
  refused.release();
  await order.settled();
  deepStrictEqual((await state.get<{ skip?: number[] }>("bot_chat_order", KEY))?.value.skip, [1]);
  await holder.leave();
  deepStrictEqual(await state.get("bot_chat_order", KEY), null); // ticket 1 skipped: the line is done
});
