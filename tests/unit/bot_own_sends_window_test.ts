// docs/bot.md, "Echo-safe": every send through the bot's service is announced and "its id remembered for a
// day, so its echo never matches `outgoing`". The day is exact, on the bot's clock (the one the store gets):
// an echo 24 h less 1 ms after the send is the bot's own; at 24 h the id is forgotten and the echo is an
// outgoing message like one typed on the phone.
import { deepStrictEqual } from "node:assert/strict";
import { ANA, inbound, ORDER_STORES, stubBot } from "../helpers/bot.ts";

const DAY_MS = 86_400_000;

for (const [kind, makeStore] of ORDER_STORES) {
  Deno.test(`own sends (${kind}): a sent id is remembered for a day on the bot's clock, to the millisecond`, async () => {
    let clock = Date.UTC(2027, 0, 4, 9);
    const now = () => clock;
    const { bot, stub } = stubBot({ store: makeStore(now), now });
    const outgoing: string[] = [];
    bot.on("outgoing", (ctx) => void outgoing.push(ctx.msg.id));
    bot.on("message:text", (ctx) => ctx.reply(`echo ${ctx.text}`));
    const sentAt = clock;
    await bot.handleUpdate(inbound("one", { id: "IN1" }));
    await bot.handleUpdate(inbound("two", { id: "IN2" }));
    deepStrictEqual(stub.texts(), ["echo one", "echo two"]);
    clock = sentAt + DAY_MS - 1;
    await bot.handleUpdate(inbound("echo one", { id: "BOT1", fromMe: true }));
    clock = sentAt + DAY_MS;
    await bot.handleUpdate(inbound("echo two", { id: "BOT2", fromMe: true }));
    await bot.handleUpdate(inbound("typed on the phone", { id: "AG1", fromMe: true }));
    deepStrictEqual(outgoing, ["BOT2", "AG1"]);
    deepStrictEqual(stub.to("/message/sendText").map((request) => request.body.number), [ANA, ANA]);
  });
}
