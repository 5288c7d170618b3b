// docs/bot.md, "What the bot costs per update": the store operations of one inbound text answered with one
// reply, for a bare `WebhookProcessor` handler sending with an idempotency key and for the bot, on a
// `MemoryStore` and on a shared store (here memory state behind a plain `StateStore`, which the bot cannot
// tell from KV or Redis). Every call on the store and on its state is one operation (`getNow`, the memory
// state's synchronous read, is a read). Counted from a process's second update on: the service's first send
// also records the instance's health (3 more).
import { deepStrictEqual } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { Bot, type BotOptions } from "../../src/bot/mod.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { GatewayStub, inbound, sharedLikeStore, stubService } from "../helpers/bot.ts";

const KIND: Record<string, string> = { get: "read", getNow: "read", set: "write", delete: "delete" };

/** `store` with every call on it and on its state written to `ops` (`write inbound_message`, `saveInbound`). */
function counting(store: GatewayStore, ops: string[]): GatewayStore {
  const wrap = <T extends object>(target: T, state?: StateLike): T =>
    new Proxy(target, {
      get: (inner, name) => {
        if (name === "state" && state !== undefined) return state;
        const value = Reflect.get(inner, name, inner);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          ops.push(state === undefined ? `${KIND[String(name)] ?? String(name)} ${args[0]}` : String(name));
          return value.apply(inner, args);
        };
      },
    });
  type StateLike = GatewayStore["state"];
  return wrap(store, wrap(store.state));
}

/** The operations of the third update of one chat (the clock 2 s on each time: no reply waits). */
async function thirdUpdate(
  handle: (body: Record<string, unknown>) => Promise<void>,
  ops: string[],
  tick: () => void,
) {
  for (let i = 1; i <= 3; i++) {
    tick();
    ops.length = 0;
    await handle(inbound(`text ${i}`, { id: `OPS${i}` }));
  }
  return [...ops].sort();
}

async function measure(
  makeStore: (now: () => number) => GatewayStore,
  pacing?: BotOptions["pacing"],
): Promise<{ bare: string[]; bot: string[] }> {
  let clock = Date.UTC(2027, 0, 4);
  const now = () => clock;
  const tick = () => void (clock += 2000);
  const bareOps: string[] = [];
  const bareStore = counting(makeStore(now), bareOps);
  const api = stubService(new GatewayStub(), bareStore, now);
  const processor = new WebhookProcessor({ store: bareStore, now, log: false });
  processor.on("messages.upsert", async (payload) => {
    if (payload.fromMe || payload.chatJid === undefined || payload.text === undefined) return;
    await api.messages().text(payload.chatJid, payload.text, {}, {
      idempotencyKey: `bare:${payload.messageId}:0`,
    });
  });
  const bare = await thirdUpdate((body) => processor.process(WebhookPayloadDto.from(body)!), bareOps, tick);
  const botOps: string[] = [];
  const botStore = counting(makeStore(now), botOps);
  const stub = new GatewayStub();
  const bot = new Bot({
    signature: { scheme: "none" },
    store: botStore,
    service: stubService(stub, botStore, now),
    now,
    ...(pacing === undefined ? {} : { pacing }),
  });
  bot.on("message:text", (ctx) => ctx.reply(ctx.text));
  const botRun = await thirdUpdate((body) => bot.handleUpdate(body), botOps, tick);
  deepStrictEqual(stub.texts(), ["text 1", "text 2", "text 3"]);
  await bot.close();
  return { bare, bot: botRun };
}

/** What both do: the claim (2 writes), the inbound record, the key (read, write, settle), the breaker's health read, the outbound record (saved, updated). */
const BOTH = [
  "write inbound_message",
  "write inbound_message",
  "saveInbound",
  "read idempotency",
  "write idempotency",
  "write idempotency",
  "read health",
  "saveOutbound",
  "updateOutbound",
];

/** `all` without one occurrence of each of `some`. */
function without(all: string[], some: string[]): string[] {
  const rest = [...all];
  for (const op of some) {
    const at = rest.indexOf(op);
    if (at < 0) return [`missing: ${op}`];
    rest.splice(at, 1);
  }
  return rest;
}

Deno.test("store operations per update (MemoryStore): a keyed bare handler 9, the bot 10 (its own: the pause read)", async () => {
  const { bare, bot } = await measure((now) => new MemoryStore({ now }));
  deepStrictEqual([bare.length, bot.length], [9, 10]);
  deepStrictEqual(bare, [...BOTH].sort());
  deepStrictEqual(without(bot, BOTH), ["read bot_paused"]);
});

Deno.test("store operations per update (shared store): a keyed bare handler 9, the bot 15 (turn, pause, gap)", async () => {
  const { bare, bot } = await measure(sharedLikeStore);
  deepStrictEqual([bare.length, bot.length], [9, 15]);
  deepStrictEqual(bare, [...BOTH].sort());
  deepStrictEqual(without(bot, BOTH), [
    "delete bot_chat_order",
    "read bot_chat_order",
    "read bot_paused",
    "read pacing-recipient",
    "write bot_chat_order",
    "write pacing-recipient",
  ]);
});

Deno.test("store operations per update: pacing with a gap between the instance's sends adds 3 (MemoryStore and shared)", async () => {
  for (const makeStore of [(now: () => number) => new MemoryStore({ now }), sharedLikeStore]) {
    const { bot } = await measure(makeStore);
    const gapped = (await measure(makeStore, { minGapMs: 1000, jitterMs: 0 })).bot;
    deepStrictEqual(without(gapped, bot), ["read pacing", "read pacing", "write pacing"]);
  }
});
