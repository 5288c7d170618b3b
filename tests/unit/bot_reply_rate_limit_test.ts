// docs/bot.md: "Replies also take slots of the service's rate limiter like any other send
// (`rate_limiting.limits.messages`, by default 30 per 60 s per connection and instance, waiting up to
// `max_wait_ms` for a slot). A bot that answers more than that rate waits (or, with `on_limit_reached:
// "throw"`, fails the update, which the server then retries)". Thirty replies go out at once; the 31st waits
// for the first slot to free (60 s on the clock every part shares), or with "throw" fails its update, whose
// retry after the window sends it.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { Bot, BotError } from "../../src/bot/mod.ts";
import { RateLimitException } from "../../src/errors/api.ts";
import { GatewayService } from "../../src/service.ts";
import { fakeTime, GatewayStub, inbound, INSTANCE } from "../helpers/bot.ts";

/** A bot answering every text, its service's limiter configured by `onLimit`, all on one fake clock. */
function limitedBot(onLimit: "wait" | "throw") {
  const time = fakeTime();
  const store = new MemoryStore({ now: time.now });
  const stub = new GatewayStub();
  const service = new GatewayService({
    server_url: "http://gateway.test",
    api_key: "k",
    instance: INSTANCE,
    store,
    retry: { max_retries: 0 },
    rate_limiting: { on_limit_reached: onLimit },
  }, { fetch: stub.fetch, now: time.now, sleep: time.sleep });
  const bot = new Bot({ signature: { scheme: "none" }, store, service, now: time.now, sleep: time.sleep });
  bot.on("message:text", (ctx) => ctx.reply(`got ${ctx.text}`));
  return { bot, stub, time };
}

/** Message `i` from its own chat (so no chat's pacing gap is involved). */
function fromChat(i: number): Record<string, unknown> {
  return inbound(`m${i}`, { id: `IN${i}`, from: `55119${String(i).padStart(8, "0")}@s.whatsapp.net` });
}

Deno.test("rate limit: a bot's 31st reply within 60 s waits for the messages bucket's first free slot (60 s)", async () => {
  const { bot, stub, time } = limitedBot("wait");
  for (let i = 1; i <= 30; i++) await bot.handleUpdate(fromChat(i));
  strictEqual(stub.texts().length, 30);
  deepStrictEqual(time.waits, []);
  const start = time.clock;
  await bot.handleUpdate(fromChat(31));
  deepStrictEqual(time.waits, [60_000]);
  strictEqual(time.clock, start + 60_000);
  deepStrictEqual(stub.texts().slice(29), ["got m30", "got m31"]);
});

Deno.test("rate limit: with on_limit_reached throw, the 31st reply fails its update unsent; its retry after the window sends it", async () => {
  const { bot, stub, time } = limitedBot("throw");
  for (let i = 1; i <= 30; i++) await bot.handleUpdate(fromChat(i));
  const failed = await bot.handleUpdate(fromChat(31)).then(() => undefined, (error) => error);
  ok(failed instanceof BotError, String(failed));
  ok(failed.error instanceof RateLimitException, String(failed.error));
  strictEqual(failed.error.retryAfter, 60);
  strictEqual(stub.texts().length, 30);
  time.clock += 60_000;
  await bot.handleUpdate(fromChat(31));
  deepStrictEqual(stub.texts().slice(29), ["got m30", "got m31"]);
  deepStrictEqual(time.waits, []);
});
