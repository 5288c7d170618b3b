// bot.fetch: the receiver's verification, route and answers, configured like handleWebhook.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { signedWebhookRequest } from "../../src/testing/mod.ts";
import { toNodeListener } from "../../src/webhooks/node_listener.ts";
import { ANA, gate, inbound, INSTANCE, stubBot } from "../helpers/bot.ts";

const URL_ = `http://bot.test/gateway/webhook/${INSTANCE}`;
const SECRET = "bot-secret-0123456789";
const JSON_HEADERS = { "content-type": "application/json" };

Deno.test("Workers bindings configure the receiver: signed webhooks run the bot, unsigned ones get 401", async () => {
  const { bot, stub } = stubBot({ signature: undefined });
  bot.on("message:text", (ctx) => ctx.reply(`echo ${ctx.text}`));
  const env = { GATEWAY_WEBHOOK_SECRET: SECRET, GATEWAY_WEBHOOK_SCHEME: "hmac" };
  const ok = await bot.fetch(
    await signedWebhookRequest(URL_, inbound("hi", { id: "F1" }), { secret: SECRET }),
    env,
  );
  strictEqual(ok.status, 200);
  await ok.body?.cancel();
  const unsigned = await bot.fetch(
    new Request(URL_, {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify(inbound("sneaky", { id: "F2" })),
    }),
    env,
  );
  strictEqual(unsigned.status, 401);
  await unsigned.body?.cancel();
  const wrongRoute = await bot.fetch(
    await signedWebhookRequest("http://bot.test/elsewhere", inbound("x", { id: "F3" }), { secret: SECRET }),
    env,
  );
  strictEqual(wrongRoute.status, 404);
  await wrongRoute.body?.cancel();
  deepStrictEqual(stub.texts(), ["echo hi"]);
  deepStrictEqual(stub.requests[0].body.number, ANA);
  await bot.close();
});

Deno.test("without a usable secret every webhook is answered 503 naming GATEWAY_WEBHOOK_SECRET", async () => {
  const { bot, stub } = stubBot({ signature: undefined });
  bot.on("message", (ctx) => ctx.reply("never"));
  const res = await bot.fetch(
    new Request(URL_, {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify(inbound("x", { id: "F4" })),
    }),
    { GATEWAY_WEBHOOK_SECRET: "" },
  );
  strictEqual(res.status, 503);
  strictEqual((await res.text()).includes("GATEWAY_WEBHOOK_SECRET"), true);
  strictEqual(stub.requests.length, 0);
  await bot.close();
});

Deno.test("the signature option wins over the environment; a redelivered webhook runs once", async () => {
  const { bot, stub } = stubBot({ signature: { scheme: "hmac", secret: "explicit-secret-42" } });
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    runs++;
    await ctx.reply("ok");
  });
  const body = inbound("hi", { id: "F5" });
  for (let i = 0; i < 3; i++) {
    const res = await bot.fetch(
      await signedWebhookRequest(URL_, body, { secret: "explicit-secret-42" }),
      { GATEWAY_WEBHOOK_SECRET: "other" },
    );
    strictEqual(res.status, 200);
    await res.body?.cancel();
  }
  strictEqual(runs, 1);
  strictEqual(stub.texts().length, 1);
  await bot.close();
});

Deno.test("a handler that throws answers 500 (the server retries) and its retry runs again", async () => {
  const { bot, stub } = stubBot({ signature: { scheme: "hmac", secret: SECRET } });
  let runs = 0;
  bot.on("message:text", async (ctx) => {
    runs++;
    await ctx.reply("step one");
    if (runs === 1) throw new Error("database down");
  });
  const body = inbound("hi", { id: "F6" });
  const first = await bot.fetch(await signedWebhookRequest(URL_, body, { secret: SECRET }));
  strictEqual(first.status, 500);
  await first.body?.cancel();
  const retry = await bot.fetch(await signedWebhookRequest(URL_, body, { secret: SECRET }));
  strictEqual(retry.status, 200);
  await retry.body?.cancel();
  strictEqual(runs, 2);
  deepStrictEqual(stub.texts(), ["step one"]); // the retry's reply was a replay
  await bot.close();
});

Deno.test("bot.fetch serves node:http through toNodeListener (Node, Bun)", async () => {
  const { bot, stub } = stubBot({ signature: { scheme: "hmac", secret: SECRET } });
  bot.on("message:text", (ctx) => ctx.reply(`node ${ctx.text}`));
  const server = createServer((req, res) => void toNodeListener(bot.fetch)(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gateway/webhook/${INSTANCE}`;
    const res = await fetch(await signedWebhookRequest(url, inbound("hi", { id: "N1" }), { secret: SECRET }));
    strictEqual(res.status, 200);
    await res.body?.cancel();
    deepStrictEqual(stub.texts(), ["node hi"]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await bot.close();
  }
});

Deno.test("a redelivery while the first delivery runs is answered 500 (retried later), then 200", async () => {
  const { bot, stub } = stubBot({ signature: { scheme: "hmac", secret: SECRET } });
  const started = gate();
  const hold = gate();
  bot.on("message:text", async (ctx) => {
    started.open();
    await hold.promise;
    await ctx.reply("once");
  });
  const body = inbound("hi", { id: "F7" });
  const first = bot.fetch(await signedWebhookRequest(URL_, body, { secret: SECRET }));
  await started.promise;
  const during = await bot.fetch(await signedWebhookRequest(URL_, body, { secret: SECRET }));
  strictEqual(during.status, 500);
  await during.body?.cancel();
  hold.open();
  const answered = await first;
  strictEqual(answered.status, 200);
  await answered.body?.cancel();
  const after = await bot.fetch(await signedWebhookRequest(URL_, body, { secret: SECRET }));
  strictEqual(after.status, 200);
  await after.body?.cancel();
  deepStrictEqual(stub.texts(), ["once"]);
  await bot.close();
});
