// docs/guarantees.md (receiver): the sender of an `@lid` message is resolved from the LID directory, whose
// "pairs never expire". A pair learned once still answers both ways ten years later on the same clock the
// store has (memory and Deno KV), its stored entries carry no expiry, and a bot still names a LID-only
// message's chat by the phone JID.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { LidDirectory } from "../../src/address/lid_directory.ts";
import { KvStore } from "../../src/backends/kv/store.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { ANA, ANA_LID, inbound, stubBot } from "../helpers/bot.ts";

const TEN_YEARS_MS = 10 * 365 * 86_400_000;
const SHOWS_PAIR = {
  event: "messages.upsert",
  instance: "sales",
  data: { key: { remoteJid: ANA_LID, remoteJidAlt: ANA, addressingMode: "lid", fromMe: false, id: "P1" } },
};

async function neverExpire(store: GatewayStore, clock: { at: number }): Promise<void> {
  const directory = new LidDirectory(store, { now: () => clock.at });
  strictEqual(await directory.learn(SHOWS_PAIR), 1);
  clock.at += TEN_YEARS_MS;
  strictEqual(await directory.toPhone(ANA_LID), "5511999999999");
  strictEqual(await directory.toLid(ANA), ANA_LID);
  const stored = await Promise.all([
    store.state.get("lid_phone", "123456789012345"),
    store.state.get("phone_lid", "5511999999999"),
  ]);
  deepStrictEqual(stored.map((entry) => entry?.expiresAt), [undefined, undefined]);
}

Deno.test("LidDirectory (memory): a pair learned once answers both ways ten years later; nothing stored expires", async () => {
  const clock = { at: Date.UTC(2027, 0, 4) };
  await neverExpire(new MemoryStore({ now: () => clock.at }), clock);
});

Deno.test("LidDirectory (Deno KV): a pair learned once answers both ways ten years later; nothing stored expires", async () => {
  const clock = { at: Date.UTC(2027, 0, 4) };
  const kv = await Deno.openKv(":memory:");
  try {
    await neverExpire(new KvStore(kv, { now: () => clock.at }), clock);
  } finally {
    kv.close();
  }
});

Deno.test("bot: ten years after a message showed a person's pair, their LID-only message's chat is the phone JID", async () => {
  let clock = Date.UTC(2027, 0, 4);
  const now = () => clock;
  const { bot } = stubBot({ store: new MemoryStore({ now }), now });
  const chats: string[] = [];
  bot.on("message:text", (ctx) => void chats.push(ctx.chat.id));
  await bot.handleUpdate(inbound("hi", {
    from: ANA_LID,
    extra: { key: { remoteJid: ANA_LID, remoteJidAlt: ANA, addressingMode: "lid", fromMe: false, id: "L1" } },
  }));
  clock += TEN_YEARS_MS;
  const fresh = stubBot({ store: bot.options.store, now }).bot; // a new process: nothing learned in memory
  fresh.on("message:text", (ctx) => void chats.push(ctx.chat.id));
  await fresh.handleUpdate(inbound("still me", { id: "L2", from: ANA_LID }));
  deepStrictEqual(chats, [ANA, ANA]);
});
