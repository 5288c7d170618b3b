// A redelivery while the first delivery is processed: 409 with Retry-After: 5, never "duplicate" (memory and
// Deno KV; the Cloudflare coordinator in tests/integration/bot_cloudflare_test.ts).
import { KvWebhookDedupe } from "../../src/backends/kv/dedupe.ts";
import { MemoryWebhookDedupe } from "../../src/backends/memory/dedupe.ts";
import type { WebhookDedupe } from "../../src/webhooks/dedupe.ts";
import { redeliveryWhileProcessing } from "../helpers/dedupe_redelivery.ts";

async function withKv(fn: (dedupe: WebhookDedupe) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "gw_dedupe_409_" });
  const kv = await Deno.openKv(`${dir}/dedupe.sqlite3`);
  try {
    await fn(new KvWebhookDedupe(kv));
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const ENGINES: [string, (fn: (dedupe: WebhookDedupe) => Promise<void>) => Promise<void>][] = [
  ["memory", (fn) => fn(new MemoryWebhookDedupe())],
  ["Deno KV", withKv],
];

for (const [engine, withDedupe] of ENGINES) {
  Deno.test(`dedupe (${engine}): a redelivery while the first runs gets 409, Retry-After: 5`, async () => {
    await withDedupe(redeliveryWhileProcessing);
  });
}
