// The bot's guarantees are stages on its processor's public inbound middleware (`processor.use`): what the
// application adds to `bot.processor` runs after the bot's middleware, for the updates the stages let through.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { ANA, inbound, stubBot } from "../helpers/bot.ts";

Deno.test("the bot's stages are the processor's inbound middleware: its handlers run after the bot, for what the stages let through", async () => {
  const { bot } = stubBot();
  const order: string[] = [];
  bot.on("message", (ctx) => void order.push(`bot:${ctx.msg.id}`));
  bot.processor
    .use(async (ctx, next) => {
      order.push(`middleware:${ctx.payload.messageId}`);
      await next();
    })
    .on("messages.upsert", (payload) => void order.push(`handler:${payload.messageId}`));
  strictEqual(bot.processor.handlerCount(), 1); // the bot is not a handler
  await bot.handleUpdate(inbound("hi", { id: "M1" }));
  deepStrictEqual(order, ["bot:M1", "middleware:M1", "handler:M1"]);
  // A redelivery stops at the processor's claim; a paused chat's message at the bot's pause stage.
  order.length = 0;
  await bot.handleUpdate(inbound("hi", { id: "M1" }));
  await bot.pause(ANA);
  await bot.handleUpdate(inbound("are you there?", { id: "M2" }));
  deepStrictEqual(order, []);
  // An update without a chat passes every stage.
  await bot.processor.process(
    WebhookPayloadDto.from({ event: "connection.update", instance: "sales", data: { state: "open" } })!,
  );
  deepStrictEqual(order, ["middleware:undefined"]);
  await bot.close();
});
