// An update the server gives no id (no delivery id, not a message) is identified by its content: a
// redelivery of the chat's last update (the same content again) is handled once, while the same content
// after another update of the chat (add, remove, add) is a new update.
import { deepStrictEqual } from "node:assert/strict";
import { GROUP, INSTANCE, stubBot } from "../helpers/bot.ts";

const PARTICIPANT = "5511977776666@s.whatsapp.net";

function change(action: string): Record<string, unknown> {
  return {
    event: "group-participants.update",
    instance: INSTANCE,
    date_time: "2026-11-28T03:00:00.000Z", // one second: the server stamps all three alike
    data: { id: GROUP, action, participants: [PARTICIPANT] },
  };
}

Deno.test("update identity: add, remove, add of one participant with one date_time, as plain JSON, run three times", async () => {
  const { bot } = stubBot();
  const seen: string[] = [];
  bot.on(["group:join", "group:leave"], (ctx) => void seen.push(ctx.group.action));
  await bot.handleUpdate(change("add"));
  await bot.handleUpdate(change("remove"));
  await bot.handleUpdate(change("add"));
  deepStrictEqual(seen, ["add", "remove", "add"]);
});

Deno.test("update identity: the same content again right after it (a redelivery) runs once; ids and reply keys differ per update", async () => {
  const { bot, stub } = stubBot();
  const seen: string[] = [];
  bot.on(["group:join", "group:leave"], async (ctx) => {
    seen.push(ctx.group.action);
    await ctx.reply(`saw ${ctx.group.action}`);
  });
  await bot.handleUpdate(change("add"));
  await bot.handleUpdate(change("add")); // redelivered
  await bot.handleUpdate(change("remove"));
  await bot.handleUpdate(change("remove")); // redelivered
  await bot.handleUpdate(change("add")); // a new add
  await bot.handleUpdate(change("add")); // redelivered
  deepStrictEqual(seen, ["add", "remove", "add"]);
  deepStrictEqual(stub.texts(), ["saw add", "saw remove", "saw add"]);
  deepStrictEqual(new Set(stub.requests.map((r) => r.idempotencyKey)).size, 3);
});
