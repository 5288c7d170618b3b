/**
 * Instance health, pacing and media costs:
 *
 *   deno bench --allow-net=127.0.0.1 bench/health_bench.ts
 *
 * - breaker: a send refused locally by the open breaker vs a send to a down instance (a real HTTP round
 *   trip to MockGatewayServer answering 500 "Connection Closed").
 * - pacing: `sendMany`'s scheduling per item (state reads and writes, item choice, progress) with an
 *   injected clock and a send that does nothing, vs calling that send in a plain loop.
 * - media: `toMediaInput` of 1 MB (sniffing + base64) vs the platform's base64 of the same bytes.
 */
import { GatewayService, InstanceDisconnectedException, MemoryState } from "../mod.ts";
import { toMediaInput } from "../src/media/mod.ts";
import { runSendMany, type SendManyItem } from "../src/pacing/send_many.ts";
import { sniffMimeType } from "../src/media/sniff.ts";
import { toBase64 } from "../src/util/base64.ts";
import { MockGatewayServer } from "../src/testing/mod.ts";

const KEY = "bench-key";
const mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
mock.addInstance("down", { open: true });
await fetch(`${mock.url}/instance/logout/down`, { method: "DELETE", headers: { apikey: KEY } }).then((r) =>
  r.body?.cancel()
);
const config = {
  server_url: mock.url,
  api_key: KEY,
  instance: "down",
  rate_limiting: { enabled: false },
  retry: { max_retries: 0 },
};
const direct = new GatewayService(config);
const guarded = new GatewayService(config);
await guarded.health().recordConnectionUpdate({ connection: "default", instance: "down" }, {
  state: "close",
  statusReason: 401,
});

Deno.bench("send to a down instance (HTTP round trip, 500 Connection Closed)", {
  group: "breaker",
  baseline: true,
}, async () => {
  try {
    await direct.getClient().request("POST", "/message/sendText/{instance}", {
      instance: "down",
      body: { number: "5511999999999", text: "hi" },
      idempotent: false,
    });
  } catch {
    // The expected refusal.
  }
});

Deno.bench("send refused by the open breaker (no request)", { group: "breaker" }, async () => {
  try {
    await guarded.messages().text("5511999999999", "hi");
    throw new Error("not refused");
  } catch (error) {
    if (!(error instanceof InstanceDisconnectedException)) throw error;
  }
});

const ITEMS: SendManyItem[] = Array.from({ length: 100 }, (_, i) => ({
  idempotencyKey: `k${i}`,
  to: `55119000000${i % 10}`,
  text: `message ${i}`,
}));
let clock = 0;
const noSend = (_item: SendManyItem, _delay: number | undefined) =>
  Promise.resolve({ messageId: "ID", replayed: false });

Deno.bench("100 sends in a plain loop (no pacing)", { group: "pacing", baseline: true }, async () => {
  for (const item of ITEMS) await noSend(item, undefined);
});

Deno.bench(
  "100 sends through sendMany's scheduler (memory state, injected clock)",
  { group: "pacing" },
  async () => {
    const state = new MemoryState({ now: () => clock });
    await runSendMany(
      {
        ref: { connection: "default", instance: "bench" },
        state,
        now: () => clock,
        sleep: (ms) => {
          clock += ms;
          return Promise.resolve();
        },
        send: noSend,
        restricted: () => Promise.resolve(undefined),
      },
      ITEMS,
      { minGapMs: 4_000, jitterMs: 3_000, recipientIntervalMs: 60_000 },
    );
  },
);

const MB = new Uint8Array(1024 * 1024);
MB.set([0xff, 0xd8, 0xff, 0xe0]);
for (let i = 4; i < MB.length; i++) MB[i] = (i * 31) & 0xff;
const blob = new Blob([MB]);

Deno.bench("base64 of 1 MB (platform)", { group: "media", baseline: true }, () => {
  toBase64(MB);
});
Deno.bench("sniff the MIME type (first 64 bytes)", { group: "media" }, () => {
  sniffMimeType(MB.subarray(0, 64));
});
Deno.bench("toMediaInput of 1 MB bytes (sniff, size check, base64)", { group: "media" }, async () => {
  await toMediaInput(MB, { type: "image" });
});
Deno.bench("toMediaInput of a 1 MB Blob (read, sniff, base64)", { group: "media" }, async () => {
  await toMediaInput(blob, { type: "image" });
});
Deno.bench("toMediaInput of 1 MB as a data URI (sniff the head, no decode)", { group: "media" }, async () => {
  await toMediaInput(DATA_URI, { type: "image" });
});
const DATA_URI = `data:image/jpeg;base64,${toBase64(MB)}`;

globalThis.addEventListener("unload", () => void mock.close());
