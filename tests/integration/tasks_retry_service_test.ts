// retryFailedMessages through a real GatewayService and client (fetch injected): the resend is the same
// request the original send made, and the client's errors land in the record.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MessageSent } from "../../src/events.ts";
import { GatewayService } from "../../src/service.ts";
import { KvStore } from "../../src/backends/kv/store.ts";
import { retryFailedMessages } from "../../src/tasks/retry_failed.ts";
import { NOW, outbound } from "../fixtures/tasks_fixtures.ts";

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

Deno.test("retryFailedMessages with GatewayService: resends the original request and records the outcome", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new KvStore(kv, { now: () => NOW });
    await store.saveOutbound(outbound("ok", 100, { instance: "sales team" }));
    await store.saveOutbound(outbound("bad", 200, { body: { number: "123", text: "x" } }));
    await store.saveOutbound(outbound("down", 300, { body: { number: "5511999999999", text: "down" } }));
    const seen: { method: string; url: string; apikey: string | null; body: unknown }[] = [];
    const fetchFake: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const body = await request.json();
      seen.push({ method: request.method, url: request.url, apikey: request.headers.get("apikey"), body });
      if (body.number === "123") {
        return json(400, {
          status: 400,
          error: "Bad Request",
          response: { message: [{ exists: false, number: "123" }] },
        });
      }
      if (body.text === "down") throw new TypeError("error reading a body from connection: connection reset");
      return json(201, {
        key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, id: "3EB0C0FFEE" },
      });
    };
    const service = new GatewayService({
      server_url: "http://127.0.0.1:9",
      api_key: "secret-key",
      rate_limiting: { enabled: false },
      retry: { max_retries: 0 },
      store,
      fetch: fetchFake,
    });
    const sent: MessageSent[] = [];
    service.events.addEventListener(MessageSent.type, (event) => sent.push(event as MessageSent));

    const result = await retryFailedMessages({ service, store, now: () => NOW });

    deepStrictEqual(seen[0], {
      method: "POST",
      url: "http://127.0.0.1:9/message/sendText/sales%20team",
      apikey: "secret-key",
      body: { number: "5511999999999", text: "hello ok" },
    });
    strictEqual(seen.length, 3);
    deepStrictEqual(result.results.map((r) => [r.id, r.status, r.messageId]), [
      ["ok", "sent", "3EB0C0FFEE"],
      ["bad", "failed", undefined],
      ["down", "failed", undefined],
    ]);
    deepStrictEqual(sent.map((event) => event.messageId), ["3EB0C0FFEE"]);
    const ok = await store.getOutbound("ok");
    deepStrictEqual([ok?.status, ok?.messageId, ok?.retryCount], ["sent", "3EB0C0FFEE", 1]);
    const bad = await store.getOutbound("bad");
    deepStrictEqual([bad?.status, bad?.outcomeUnknown, bad?.permanent], ["failed", false, true]);
    strictEqual(bad?.lastError?.includes("not on WhatsApp"), true);
    // A connection dropped after the request went out: the send may have been acted on, its outcome is
    // unknown, and the next run skips it.
    const down = await store.getOutbound("down");
    deepStrictEqual([down?.status, down?.outcomeUnknown], ["failed", true]);
    const next = await retryFailedMessages({ service, store, now: () => NOW });
    deepStrictEqual(next.results.map((r) => [r.id, r.status, r.reason]), [
      // Not on WhatsApp cannot heal by resending: the record is permanent.
      ["bad", "skipped", "permanent"],
      ["down", "skipped", "outcome_unknown"],
    ]);
  } finally {
    kv.close();
  }
});
