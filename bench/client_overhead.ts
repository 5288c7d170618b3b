// The full client path (connection lookup, rate-limit gate off and on, headers, retry loop, JSON parse,
// error mapping, metrics, logging calls) against a plain fetch + JSON parse of the same local stub.
// Run: deno bench --allow-net=127.0.0.1 bench/client_overhead.ts
import { GatewayService } from "../mod.ts";

const body = JSON.stringify({
  key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, id: "3EB0C7F3A1B2C3D4E5F6" },
  pushName: "Você",
  status: "PENDING",
  message: { conversation: "Hello" },
  messageType: "conversation",
  messageTimestamp: 1_760_000_000,
  instanceId: "8d5e3f6a-1111-2222-3333-444455556666",
  source: "web",
});
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  await request.arrayBuffer();
  return new Response(body, { status: 201, headers: { "content-type": "application/json" } });
});
const url = `http://127.0.0.1:${server.addr.port}`;
const payload = { number: "5511999999999", text: "Hello" };

const plain = GatewayService.make({
  server_url: url,
  api_key: "bench-key",
  instance: "bench",
  rate_limiting: { enabled: false },
});
const limited = GatewayService.make({
  server_url: url,
  api_key: "bench-key",
  instance: "bench",
  rate_limiting: { limits: { messages: { max_attempts: 1_000_000_000, decay_seconds: 60 } } },
});

Deno.bench("plain fetch + JSON.parse", { group: "send", baseline: true }, async () => {
  const res = await fetch(`${url}/message/sendText/bench`, {
    method: "POST",
    headers: { apikey: "bench-key", "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(payload),
  });
  JSON.parse(await res.text());
});

Deno.bench("client.request (no limiter)", { group: "send" }, async () => {
  await plain.getClient().request("POST", "/message/sendText/{instance}", {
    body: payload,
    idempotent: false,
  });
});

Deno.bench("client.request (memory limiter)", { group: "send" }, async () => {
  await limited.getClient().request("POST", "/message/sendText/{instance}", {
    body: payload,
    idempotent: false,
    bucket: "messages",
  });
});

globalThis.addEventListener("unload", () => {
  server.shutdown();
});
