// The chat lines of a bot on a `MemoryState` (src/bot/local_order.ts): a chat whose line emptied keeps its
// last place until a sweep; the sweep drops only chats with nothing waiting or running, so the order holds.
import { deepStrictEqual } from "node:assert/strict";
import { MemoryState } from "../../src/backends/memory/state.ts";
import { LocalChatOrder } from "../../src/bot/local_order.ts";

const INSTANCE = "sales";

/** Let every pending reaction run (no timer: microtasks only). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

Deno.test("local order: a chat's turn waits for the one before it, across a sweep of 2,000 emptied lines", async () => {
  const order = new LocalChatOrder(new MemoryState());
  const seen: string[] = [];
  const first = order.arrive(INSTANCE, "ana@s.whatsapp.net");
  const running = await order.enter(INSTANCE, "ana@s.whatsapp.net", first);
  // Other chats come and go (their lines empty), past the size that starts a sweep.
  for (let n = 0; n < 2000; n++) {
    const chat = `55119${String(n).padStart(8, "0")}@s.whatsapp.net`;
    await (await order.enter(INSTANCE, chat, order.arrive(INSTANCE, chat))).leave();
  }
  const second = order.arrive(INSTANCE, "ana@s.whatsapp.net");
  const waiting = order.enter(INSTANCE, "ana@s.whatsapp.net", second).then((turn) => {
    seen.push("second");
    return turn;
  });
  await settle();
  deepStrictEqual(seen.length, 0); // the first still runs
  seen.push("first done");
  await running.leave();
  await (await waiting).leave();
  deepStrictEqual(seen, ["first done", "second"]);
  // A chat whose line emptied starts at once.
  const again = order.arrive(INSTANCE, "5511900000007@s.whatsapp.net");
  let entered = false;
  void order.enter(INSTANCE, "5511900000007@s.whatsapp.net", again).then(() => entered = true);
  await settle();
  deepStrictEqual(entered, true);
});
