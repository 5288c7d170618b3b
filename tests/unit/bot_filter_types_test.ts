// Filter queries narrow the context at compile time (`deno test` and `deno check` type-check this file, so
// each `@ts-expect-error` below must be an error) and are checked when registered, at run time.
import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../src/errors.ts";
import { Bot, type Context, type Filter, matchFilter } from "../../src/bot/mod.ts";
import { inbound, stubBot } from "../helpers/bot.ts";

Deno.test("message:text narrows ctx.text to string; message:image keeps string | undefined", async () => {
  const { bot } = stubBot();
  const seen: string[] = [];
  bot.on("message:text", (ctx) => {
    const text: string = ctx.text; // compiles: a string here
    const body: string = ctx.msg.text;
    const chat: string = ctx.chat.id;
    seen.push(text.toUpperCase(), body, chat);
  });
  bot.on("message:image", (ctx) => {
    // @ts-expect-error the caption may be absent under message:image
    const caption: string = ctx.text;
    const media = ctx.msg.media; // set under message:image
    seen.push(`image:${caption}:${media.mimetype}`);
  });
  bot.use((ctx) => {
    // @ts-expect-error without a query, ctx.text may be undefined
    const text: string = ctx.text;
    // @ts-expect-error without a query, ctx.chat may be undefined
    const id: string = ctx.chat.id;
    void text, id;
  });
  await bot.handleUpdate(inbound("hi", { id: "T1" }));
  await bot.handleUpdate(inbound({ imageMessage: { mimetype: "image/jpeg" } }, { id: "T2" }));
  deepStrictEqual(seen, ["HI", "hi", "5511999999999@s.whatsapp.net", "image:undefined:image/jpeg"]);
});

Deno.test("narrowing per query: button, list, reaction, status, group, connection", () => {
  const { bot } = stubBot();
  bot.on("message:button", (ctx) => void (ctx.msg.buttonId satisfies string));
  bot.on("message:list", (ctx) => void (ctx.msg.rowId satisfies string));
  bot.on("message:reaction", (ctx) => void (ctx.msg.reaction satisfies string));
  bot.on("status", (ctx) => void (ctx.status satisfies string));
  bot.on("group:join", (ctx) => void (ctx.group.participants satisfies string[]));
  bot.on("connection", (ctx) => void (ctx.connection.state satisfies string));
  bot.on(["message:text", "message:image"], (ctx) => {
    // @ts-expect-error a union of text and image: the text may be absent
    const text: string = ctx.text;
    void text;
  });
  // @ts-expect-error not a filter query
  throws(() => bot.on("message:txt", () => {}), ConfigurationException);
});

Deno.test("an unknown query throws at registration, suggesting and listing the valid ones", () => {
  const bot = new Bot({ signature: { scheme: "none" }, pacing: false });
  const error = throws(
    // @ts-expect-error not a filter query
    () => bot.on("mesage:text", () => {}),
    (e: unknown) =>
      e instanceof ConfigurationException &&
      e.message.includes('"mesage:text"') &&
      e.message.includes('did you mean "message:text"?') &&
      e.message.includes("message:list") &&
      e.message.includes("group:promote"),
  );
  void error;
  // @ts-expect-error not a filter query
  throws(() => matchFilter(["message", "nope"]), {
    name: "ConfigurationException",
    message: 'Cannot use filter query "nope": it is not a query. Valid queries: message, message:text, ' +
      "message:image, message:video, message:audio, message:document, message:sticker, message:location, " +
      "message:contact, message:reaction, message:button, message:list, message:poll, edit, delete, status, " +
      "group:join, group:leave, group:promote, group:demote, connection, call, outgoing, story",
  });
  throws(() => matchFilter([]), ConfigurationException);
});

Deno.test("matchFilter is a type guard usable outside a composer", () => {
  const isText = matchFilter<Context, "message:text">("message:text");
  const shout = (ctx: Filter<Context, "message:text">) => ctx.text.toUpperCase();
  const fake = { update: { queries: ["message", "message:text"] }, text: "ok" } as unknown as Context;
  strictEqual(isText(fake) ? shout(fake) : "no", "OK");
  strictEqual(isText({ update: { queries: ["message"] } } as unknown as Context), false);
});
