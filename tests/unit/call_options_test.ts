// Options that make no sense are refused before any request: a delay of 1e12 ms, a negative or NaN number, a
// per-call option the call does not take (`deadlineMs` on a resource call) or a misspelt one, each with a
// ValidationException that names it (and the key the user most likely meant).

import { ok, rejects, strictEqual, throws } from "node:assert/strict";
import { GatewayService, SendTextMessageDto, ValidationException } from "../../mod.ts";

function service() {
  const calls: string[] = [];
  const gw = new GatewayService({
    server_url: "http://127.0.0.1:9",
    api_key: "call-options-key-0123456789",
    instance: "sales",
    rate_limiting: { enabled: false },
  }, {
    fetch: (input) => {
      calls.push(String(input));
      return Promise.resolve(
        new Response('{"key":{"id":"A"},"instance":{"state":"open"}}', {
          status: 201,
          headers: { "content-type": "application/json" },
        }),
      );
    },
  });
  return { gw, calls };
}

async function refused(call: Promise<unknown>, calls: string[], ...parts: string[]): Promise<void> {
  await rejects(call, (error: unknown) => {
    ok(error instanceof ValidationException, String(error));
    for (const part of parts) ok(error.message.includes(part), `"${error.message}" lacks "${part}"`);
    return true;
  });
  strictEqual(calls.length, 0, "no request went out");
}

Deno.test("a send's delay of 1e12 ms is refused before any request, naming the largest delay", async () => {
  const { gw, calls } = service();
  await refused(
    gw.messages().text("5511999999999", "hi", { delay: 1e12 }),
    calls,
    "delay must be between 0 and 300000",
  );
});

Deno.test("a send's delay that is negative, NaN or infinite is refused before any request", async () => {
  const { gw, calls } = service();
  await refused(gw.messages().text("5511999999999", "hi", { delay: -1 }), calls, "delay must be between 0");
  await refused(gw.messages().text("5511999999999", "hi", { delay: NaN }), calls, "delay must be a number");
  await refused(
    gw.messages().text("5511999999999", "hi", { delay: Infinity }),
    calls,
    "delay must be a number",
  );
});

Deno.test("a request object refuses a delay of 1e12 ms", () => {
  throws(
    () => SendTextMessageDto.from({ number: "5511999999999", text: "hi", delay: 1e12 }),
    (error: unknown) =>
      error instanceof ValidationException && error.message.includes("delay must be between"),
  );
});

Deno.test("sendPresence refuses a delay of 1e12 ms before any request", async () => {
  const { gw, calls } = service();
  await refused(gw.chats().sendPresence("5511999999999", "composing", 1e12), calls, "delay must be between");
});

Deno.test("maxRetries that is negative, NaN, fractional or huge is refused before any request", async () => {
  const { gw, calls } = service();
  for (const maxRetries of [-1, NaN, 1.5, 1e12]) {
    await refused(
      gw.messages().text("5511999999999", "hi", {}, { maxRetries }),
      calls,
      `"maxRetries" must be an integer from 0 to 100, got ${maxRetries}`,
    );
    await refused(
      gw.instances().connectionState("sales", { maxRetries }),
      calls,
      `"maxRetries" must be an integer from 0 to 100`,
    );
  }
});

Deno.test("client.request refuses a serverDelayMs of 1e12, -1 or NaN before any request", async () => {
  const { gw, calls } = service();
  for (const serverDelayMs of [1e12, -1, NaN]) {
    await refused(
      gw.getClient().request("POST", "/chat/sendPresence/{instance}", { body: {}, serverDelayMs }),
      calls,
      `"serverDelayMs" must be an integer from 0 to 300000`,
    );
  }
});

Deno.test("client.request refuses an idempotencyKey that is empty or not a string, and a signal that is not one", async () => {
  // An empty key was dropped silently (no header); a string signal failed as "Cannot reach gateway server".
  const { gw, calls } = service();
  const send = (options: Record<string, unknown>) =>
    gw.getClient().request("POST", "/message/sendText/{instance}", {
      body: { number: "5511999999999", text: "hi" },
      ...options,
    });
  for (const idempotencyKey of ["", " ", 5, "k".repeat(256)]) {
    await refused(send({ idempotencyKey }), calls, "Invalid idempotencyKey");
  }
  for (const signal of ["x", {}, null]) {
    await refused(send({ signal }), calls, '"signal" must be an AbortSignal');
  }
});

Deno.test("deadlineMs on a send, which no resource call takes, is refused with a suggestion", async () => {
  const { gw, calls } = service();
  await refused(
    gw.messages().text("5511999999999", "hi", { deadlineMs: 5 } as never),
    calls,
    '"deadlineMs" is not an option',
    'did you mean "timeoutMs"?',
  );
});

Deno.test("deadlineMs on a read, which the call would ignore, is refused with a suggestion", async () => {
  const { gw, calls } = service();
  await refused(
    gw.instances().connectionState("sales", { deadlineMs: 5 } as never),
    calls,
    '"deadlineMs" is not an option',
    'did you mean "timeoutMs"?',
  );
});

Deno.test("a misspelt option of a send is refused with the key meant", async () => {
  const { gw, calls } = service();
  await refused(
    gw.messages().text("5511999999999", "hi", { timeoutMS: 5 } as never),
    calls,
    '"timeoutMS" is not an option',
    'did you mean "timeoutMs"?',
  );
  await refused(
    gw.messages().text("5511999999999", "hi", { dealy: 5 } as never),
    calls,
    '"dealy" is not an option',
    'did you mean "delay"?',
  );
});

Deno.test("a request object refuses a field it does not have, with the field meant", () => {
  throws(
    () => SendTextMessageDto.from({ number: "5511999999999", text: "hi", linkPreveiw: true } as never),
    (error: unknown) =>
      error instanceof ValidationException &&
      error.message.includes('"linkPreveiw" is not an option') &&
      error.message.includes('did you mean "linkPreview"?'),
  );
});

Deno.test("an option set to undefined is no option: the send goes out", async () => {
  const { gw, calls } = service();
  await gw.messages().text("5511999999999", "hi", { delay: undefined }, { timeoutMs: undefined });
  strictEqual(calls.length, 1);
});

Deno.test("a call option put in a request object says where it belongs", () => {
  throws(
    () => SendTextMessageDto.from({ number: "5511999999999", text: "hi", timeoutMs: 5 } as never),
    (error: unknown) =>
      error instanceof ValidationException &&
      error.message ===
        'Invalid text message: "timeoutMs" is a call option, not a field of the request: pass it in the call\'s options',
  );
});
