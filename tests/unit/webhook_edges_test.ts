// Nothing silent at the receiver's edges: a handler that throws, a POST to a path it does not serve, an
// envelope without an instance, a body nested thousands of levels deep.
import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { createWebhookHandler, type WebhookHandlerOptions } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { inbound, INSTANCE, stubBot } from "../helpers/bot.ts";

const NOW = 1_760_000_000_000;
const BASE = "http://127.0.0.1:8000";
const JSON_HEADERS = { "content-type": "application/json" };

const message = (id = "M1") => ({
  event: "messages.upsert",
  instance: "sales",
  data: {
    key: { id, remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
    message: { conversation: "hi" },
  },
});

const post = (path: string, body: unknown) =>
  new Request(`${BASE}${path}`, {
    method: "POST",
    headers: JSON_HEADERS,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** Run `body` with console.error captured; the lines written. */
async function stderrOf(body: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    await body();
  } finally {
    console.error = original;
  }
  return lines;
}

function receiver(options: WebhookHandlerOptions = {}) {
  let runs = 0;
  const processor = options.processor ?? new WebhookProcessor({ log: false }).onAny(() => void runs++);
  const handler = createWebhookHandler({
    signature: { scheme: "none" },
    now: () => NOW,
    ...options,
    processor,
  });
  return { handler, runs: () => runs };
}

for (const store of [false, true]) {
  Deno.test(`a handler that throws: 500, and one stderr line naming the event, the instance and the error (store: ${store})`, async () => {
    let clock = NOW;
    const processor = new WebhookProcessor({ log: false }).on("messages.upsert", () => {
      throw new TypeError("cannot read the order table");
    });
    const { handler } = receiver({
      processor,
      now: () => clock,
      store: store ? new MemoryStore() : undefined,
    });
    const lines = await stderrOf(async () => {
      const response = await handler(post("/gateway/webhook/sales", message()));
      strictEqual(response.status, 500);
      deepStrictEqual(await response.json(), { ok: false, error: "Webhook processing failed" });
      // The server's retry 5 s later fails the same way: counted, not written again within the minute.
      clock = NOW + 5_000;
      strictEqual((await handler(post("/gateway/webhook/sales", message()))).status, 500);
      clock = NOW + 60_000;
      strictEqual((await handler(post("/gateway/webhook/sales", message()))).status, 500);
    });
    deepStrictEqual(lines, [
      '[gateway] Webhook MESSAGES_UPSERT for instance "sales" failed, answered 500 (the server retries it): ' +
      "TypeError: cannot read the order table",
      '[gateway] Webhook MESSAGES_UPSERT for instance "sales" failed, answered 500 (the server retries it): ' +
      "TypeError: cannot read the order table (1 more since the last line of this cause)",
    ]);
    await handler.close();
  });
}

Deno.test("a handler's error that quotes the envelope's apikey: the line names the error, never the key", async () => {
  const apikey = "B6D711FCDE4D4FD5936544120E713976";
  const processor = new WebhookProcessor({ log: false }).on("messages.upsert", (payload) => {
    throw new Error(`cannot save ${JSON.stringify(payload.raw)}`);
  });
  const { handler } = receiver({ processor });
  const lines = await stderrOf(async () => {
    strictEqual((await handler(post("/gateway/webhook/sales", { ...message(), apikey }))).status, 500);
  });
  strictEqual(lines.length, 1);
  ok(lines[0].startsWith('[gateway] Webhook MESSAGES_UPSERT for instance "sales" failed'), lines[0]);
  ok(lines[0].includes('"apikey":"[redacted]"'), lines[0]);
  strictEqual(lines[0].includes(apikey), false, lines[0]);
  await handler.close();
});

Deno.test("a bot whose reply fails: 500 and one stderr line with the reply's error", async () => {
  const { bot, stub } = stubBot();
  bot.on("message:text", (ctx) => ctx.reply(`echo ${ctx.text}`));
  stub.failNext = { status: 400, count: 1 };
  const lines = await stderrOf(async () => {
    const response = await bot.fetch(post(`/gateway/webhook/${INSTANCE}`, inbound("hi", { id: "B1" })));
    strictEqual(response.status, 500);
    await response.body?.cancel();
  });
  strictEqual(lines.length, 1, lines.join("\n"));
  ok(
    lines[0].startsWith(
      `[gateway] Webhook MESSAGES_UPSERT for instance "${INSTANCE}" failed, answered 500 (the server retries it): ` +
        "BotError: Cannot handle update: ",
    ),
    lines[0],
  );
  ok(lines[0].includes("400"), lines[0]);
  await bot.close();
});

Deno.test("a POST to a path the receiver does not serve: 404, one line per minute naming the route it serves", async () => {
  let clock = NOW;
  const { handler, runs } = receiver({ now: () => clock });
  const lines = await stderrOf(async () => {
    for (const path of ["/webhook/sales", "/webhook/sales", "/hooks/sales?x=1"]) {
      const response = await handler(post(path, message()));
      strictEqual(response.status, 404);
      deepStrictEqual(await response.json(), { ok: false, error: "Not Found" });
    }
    // Scanners' GETs stay quiet.
    strictEqual((await handler(new Request(`${BASE}/.env`))).status, 404);
    clock = NOW + 60_000;
    strictEqual((await handler(post("/webhook/a\u0007b", message()))).status, 404);
  });
  strictEqual(runs(), 0);
  deepStrictEqual(lines, [
    '[gateway] Webhook refused (404): POST "/webhook/sales" is not a webhook route; this receiver serves POST ' +
    '/gateway/webhook/<instance> (routePrefix "gateway/webhook")',
    '[gateway] Webhook refused (404): POST "/webhook/a%07b" is not a webhook route; this receiver serves ' +
    'POST /gateway/webhook/<instance> (routePrefix "gateway/webhook") (2 more since the last line of this cause)',
  ]);
});

for (const store of [false, true]) {
  Deno.test(`an envelope without an instance (or an empty one) is bad input: 400, no handler runs (store: ${store})`, async () => {
    const { handler, runs } = receiver({ store: store ? new MemoryStore() : undefined });
    const { instance: _, ...noInstance } = message();
    // Whitespace names no instance either (the server's names have none around them).
    for (const body of [noInstance, { ...message(), instance: "" }, { ...message(), instance: " \t" }]) {
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await handler(post("/gateway/webhook", body));
        strictEqual(response.status, 400);
        deepStrictEqual(await response.json(), {
          ok: false,
          error: 'Invalid webhook body: no "instance" (in the body or the URL)',
        });
      }
    }
    strictEqual(runs(), 0);
    const blankUrl = await handler(post("/gateway/webhook/%20", noInstance));
    strictEqual(blankUrl.status, 400);
    await blankUrl.body?.cancel();
    strictEqual(runs(), 0);
    // The URL's instance is enough when the body has none.
    strictEqual((await handler(post("/gateway/webhook/sales", noInstance))).status, 200);
    strictEqual(runs(), 1);
    await handler.close();
  });

  Deno.test(`a body nested 5,000 levels deep is bad input: 400, no handler runs (store: ${store})`, async () => {
    const { handler, runs } = receiver({ store: store ? new MemoryStore() : undefined });
    const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    for (const depth of [5_000, 100_000]) {
      const inMessage = JSON.stringify(message()).replace(
        '"conversation":"hi"',
        `"conversation":"hi","x":${deep(depth)}`,
      );
      for (
        const body of [inMessage, `{"event":"messages.upsert","instance":"sales","data":${deep(depth)}}`]
      ) {
        const response = await handler(post("/gateway/webhook/sales", body));
        strictEqual(response.status, 400);
        deepStrictEqual(await response.json(), {
          ok: false,
          error: "Invalid webhook body: nested more than 64 levels deep",
        });
      }
    }
    // Brackets inside strings are text, not nesting.
    const text = JSON.stringify(message()).replace('"hi"', JSON.stringify("[{".repeat(5_000)));
    strictEqual((await handler(post("/gateway/webhook/sales", text))).status, 200);
    // 64 levels in all is accepted.
    const at64 = `{"event":"messages.upsert","instance":"sales","data":${deep(63)}}`;
    strictEqual((await handler(post("/gateway/webhook/sales", at64))).status, 200);
    const at65 = `{"event":"messages.upsert","instance":"sales","data":${deep(64)}}`;
    strictEqual((await handler(post("/gateway/webhook/sales", at65))).status, 400);
    strictEqual(runs(), 2);
    await handler.close();
  });

  Deno.test(`the depth limit reads escaped quotes as JSON does: text stays text, nesting stays nesting (store: ${store})`, async () => {
    const { handler, runs } = receiver({ store: store ? new MemoryStore() : undefined });
    const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    const withText = (value: string, data: string) =>
      `{"event":"messages.upsert","instance":"sales","x":${JSON.stringify(value)},"data":${data}}`;
    // An escaped quote does not end the string: the brackets after it are still text.
    const quoted = await handler(post("/gateway/webhook/sales", withText(`say "${"[".repeat(100)}"`, "[]")));
    strictEqual(quoted.status, 200);
    await quoted.body?.cancel();
    // An escaped backslash before the quote does end it: the nesting after it counts.
    for (const [depth, status] of [[63, 200], [64, 400]]) {
      for (const value of ["a\\", "a\\\\\\", `"${"{".repeat(70)}\\`]) {
        const response = await handler(post("/gateway/webhook/sales", withText(value, deep(depth))));
        strictEqual(response.status, status, `${JSON.stringify(value)} then ${depth} levels`);
        await response.body?.cancel();
      }
    }
    strictEqual(runs(), 4);
    await handler.close();
  });
}

Deno.test("a refused request's stderr line never carries the sender's control characters (no forged lines)", async () => {
  // A JWT header is the sender's JSON: its "alg" can hold a newline and terminal escapes, and was quoted as is.
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const handler = createWebhookHandler({
    signature: { secret: "jwt-key-of-the-instance-0123456789abcdef" },
    processor: new WebhookProcessor({ log: false }),
    now: () => NOW,
  });
  const lines = await stderrOf(async () => {
    const response = await handler(
      new Request(`${BASE}/gateway/webhook/sales`, {
        method: "POST",
        headers: {
          ...JSON_HEADERS,
          authorization: `Bearer ${part({ alg: "\n[gw] ok\u001b[2J" })}.${part({})}.AAAA`,
        },
        body: JSON.stringify(message()),
      }),
    );
    strictEqual(response.status, 401);
    await response.body?.cancel();
  });
  strictEqual(lines.length, 1);
  ok(lines[0].includes('the JWT algorithm is "\\n[gw] ok\\u001b[2J"'), lines[0]);
  // deno-lint-ignore no-control-regex -- control characters are what must not reach the log
  strictEqual(/[\u0000-\u001f\u007f]/.test(lines[0]), false, JSON.stringify(lines[0]));
  await handler.close();
});
