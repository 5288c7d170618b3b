// The composer: every method, in the order middleware runs.
import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../src/errors.ts";
import { Bot, BotError, Composer, type Context } from "../../src/bot/mod.ts";
import { inbound, stubBot } from "../helpers/bot.ts";

Deno.test("use runs middleware in order, around next; on and hears branch off", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  bot.use(async (_ctx, next) => {
    log.push("a:before");
    await next();
    log.push("a:after");
  });
  bot.on("message:image", () => void log.push("image"));
  bot.hears("hi", (ctx) => void log.push(`hears:${ctx.match}`));
  bot.use(() => void log.push("last"));
  await bot.handleUpdate(inbound("hi", { id: "C1" }));
  await bot.handleUpdate(inbound("other", { id: "C2" }));
  deepStrictEqual(log, ["a:before", "hears:hi", "a:after", "a:before", "last", "a:after"]);
});

Deno.test("hears: regular expressions (ctx.match), arrays, captions; not for status posts", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  bot.hears([/^order (\d+)$/i, "menu"], (ctx) => {
    log.push(typeof ctx.match === "string" ? ctx.match : ctx.match[1]);
  });
  await bot.handleUpdate(inbound("ORDER 42", { id: "H1" }));
  await bot.handleUpdate(inbound("menu", { id: "H2" }));
  await bot.handleUpdate(inbound({ imageMessage: { caption: "order 7" } }, { id: "H3" }));
  await bot.handleUpdate(inbound("menu please", { id: "H4" }));
  deepStrictEqual(log, ["42", "menu", "7"]);
  throws(() => bot.hears([], () => {}), ConfigurationException);
});

Deno.test("command: /name or !name, any case, ctx.match is the rest", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  bot.command(["start", "/help"], (ctx) => void log.push(`cmd:${ctx.match}`));
  for (
    const [id, text] of [["K1", "/start"], ["K2", "!HELP  me  please "], ["K3", "/started"], ["K4", "start"]]
  ) {
    await bot.handleUpdate(inbound(text, { id }));
  }
  deepStrictEqual(log, ["cmd:", "cmd:me  please"]);
  throws(() => bot.command("bad name", () => {}), ConfigurationException);
});

Deno.test("filter, drop, branch and route pick middleware per update", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  bot.filter((ctx) => ctx.text === "f", () => void log.push("filter"));
  bot.drop((ctx) => ctx.text !== "d", () => void log.push("drop"));
  bot.branch((ctx) => ctx.text === "b", () => void log.push("branch:yes"), (_ctx, next) => next());
  bot.route((ctx) => ctx.text === "r1" ? "one" : ctx.text === "r2" ? "two" : undefined, {
    one: () => void log.push("route:one"),
    two: () => void log.push("route:two"),
  }, () => void log.push("route:fallback"));
  for (const text of ["f", "d", "b", "r1", "r2", "x"]) {
    await bot.handleUpdate(inbound(text, { id: `R${text}` }));
  }
  deepStrictEqual(log, ["filter", "drop", "branch:yes", "route:one", "route:two", "route:fallback"]);
});

Deno.test("filter predicates: async ones are awaited, truthy values count, a throw fails the update", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  bot.filter(async (ctx) => {
    await Promise.resolve();
    return ctx.text === "a";
  }, () => void log.push("async"));
  // A JavaScript caller may return any value: a non-empty string holds, like a true.
  bot.filter((ctx) => (ctx.text === "t" ? "yes" : "") as unknown as boolean, () => void log.push("truthy"));
  bot.filter((ctx) => {
    if (ctx.text === "boom") throw new Error("predicate failed");
    return false;
  }, () => void log.push("never"));
  for (const text of ["a", "t", "x"]) await bot.handleUpdate(inbound(text, { id: `P${text}` }));
  await rejects(
    bot.handleUpdate(inbound("boom", { id: "Pboom" })),
    (e: unknown) => e instanceof Error && (e as { error?: Error }).error?.message === "predicate failed",
  );
  deepStrictEqual(log, ["async", "truthy"]);
});

Deno.test("lazy builds middleware per update; fork runs beside the chain", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  let release!: () => void;
  const forked = new Promise<void>((resolve) => release = resolve);
  bot.fork(async () => {
    await forked;
    log.push("fork");
  });
  bot.lazy((ctx) => [(_c, next) => (log.push(`lazy:${ctx.text}`), next())]);
  bot.use(() => {
    log.push("main");
    release();
  });
  await bot.handleUpdate(inbound("z", { id: "L1" }));
  deepStrictEqual(log, ["lazy:z", "main", "fork"]);
});

Deno.test("errorBoundary catches errors of its middleware only, as BotError; next goes on", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  bot.errorBoundary((err, next) => {
    ok(err instanceof BotError);
    log.push(`caught:${(err.error as Error).message}:${err.ctx.text}`);
    return next();
  }, () => {
    throw new Error("inner");
  });
  bot.use(() => void log.push("after"));
  await bot.handleUpdate(inbound("e", { id: "E1" }));
  deepStrictEqual(log, ["caught:inner:e", "after"]);
});

Deno.test("calling next twice throws; bot.catch receives a BotError with ctx", async () => {
  const { bot } = stubBot();
  bot.use(async (_ctx, next) => {
    await next();
    await next();
  });
  const caught: BotError<Context>[] = [];
  bot.catch((err) => void caught.push(err));
  await bot.handleUpdate(inbound("n", { id: "N1" }));
  strictEqual(caught.length, 1);
  strictEqual((caught[0].error as Error).message, "Cannot call next() twice in one middleware");
  strictEqual(caught[0].ctx.msg?.id, "N1");
});

Deno.test("inside errorBoundary too, calling next twice throws: the boundary's handler gets the error", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  bot.errorBoundary((err, next) => {
    log.push(`caught:${(err.error as Error).message}`);
    return next(); // the handler's own next: once is fine
  }, async (_ctx, next) => {
    await next();
    await next();
  });
  bot.use(() => void log.push("after"));
  await bot.handleUpdate(inbound("n", { id: "N2" }));
  deepStrictEqual(log, ["caught:Cannot call next() twice in one middleware", "after"]);

  const { bot: second } = stubBot();
  second.errorBoundary(async (_err, next) => {
    await next();
    await next();
  }, () => {
    throw new Error("inner");
  });
  const error = await second.handleUpdate(inbound("m", { id: "N3" })).then(() => undefined, (e) => e);
  ok(error instanceof BotError);
  strictEqual((error.error as Error).message, "Cannot call next() twice in one middleware");
});

Deno.test("without catch, handleUpdate rejects with the BotError", async () => {
  const { bot } = stubBot();
  bot.use(() => {
    throw new Error("boom");
  });
  await rejects(bot.handleUpdate(inbound("x", { id: "B1" })), (e: unknown) => {
    return e instanceof BotError && e.message === "Cannot handle update: boom" && e.ctx.text === "x";
  });
});

Deno.test("a Composer is middleware; bad middleware throws at registration", async () => {
  const { bot } = stubBot();
  const log: string[] = [];
  const sub = new Composer<Context>();
  sub.on("message:text", (ctx) => void log.push(`sub:${ctx.text}`));
  bot.use(sub);
  await bot.handleUpdate(inbound("s", { id: "S1" }));
  deepStrictEqual(log, ["sub:s"]);
  // @ts-expect-error not middleware
  throws(() => bot.use(42), ConfigurationException);
});

Deno.test("new Bot refuses an unknown option with a suggestion, and bad values", () => {
  throws(
    // @ts-expect-error not an option
    () => new Bot({ debounce: 100 }),
    (e: unknown) =>
      e instanceof ConfigurationException &&
      e.message === 'new Bot: "debounce" is not an option; did you mean "debounceMs"?',
  );
  // @ts-expect-error not a groups value
  throws(() => new Bot({ groups: "some" }), /Invalid bot option "groups"/);
  throws(() => new Bot({ debounceMs: -1 }), /Invalid bot option "debounceMs"/);
  throws(
    // @ts-expect-error not a pacing rule
    () => new Bot({ pacing: { recipientInterval: 1000 } }),
    (e: unknown) =>
      e instanceof ConfigurationException &&
      e.message ===
        'new Bot: "pacing.recipientInterval" is not an option; did you mean "pacing.recipientIntervalMs"?',
  );
});
