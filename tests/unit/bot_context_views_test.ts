// Parse once: the update is read once, at its arrival; the context's fields are views over that one object.
import { deepStrictEqual } from "node:assert/strict";
import type { BotUpdate } from "../../src/bot/update_types.ts";
import { ANA, inbound, stubBot } from "../helpers/bot.ts";

const VIEWS = ["instance", "chat", "from", "msg", "text", "status", "group", "connection", "call"] as const;

Deno.test("context: its fields are views over the update read at arrival, not copies", async () => {
  const { bot } = stubBot();
  const seen: unknown[] = [];
  bot.on("message:text", async (ctx) => {
    const placed = await bot.processor.placed<BotUpdate>(ctx.payload);
    seen.push(placed.value === ctx.update); // the very object read at arrival
    seen.push(VIEWS.filter((name) => Object.hasOwn(ctx, name))); // no field copied onto the context
    seen.push(ctx.msg === ctx.update.msg, ctx.text, ctx.chat?.id, ctx.instance);
  });
  await bot.handleUpdate(inbound("hello", { id: "V1" }));
  deepStrictEqual(seen, [true, [], true, "hello", ANA, "sales"]);
});

Deno.test("context: a field read goes to the update, so a view and its update never disagree", async () => {
  const { bot } = stubBot();
  let texts: (string | undefined)[] = [];
  bot.on("message:text", (ctx) => {
    const before = ctx.text;
    ctx.update.msg!.text = "edited by a plugin";
    texts = [before, ctx.text, ctx.msg?.text];
  });
  await bot.handleUpdate(inbound("hello", { id: "V2" }));
  deepStrictEqual(texts, ["hello", "edited by a plugin", "edited by a plugin"]);
});
