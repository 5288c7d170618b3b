// A redelivery while the first delivery is processed: 409 with Retry-After: 5, never "duplicate" (memory and
// Deno KV; the Cloudflare coordinator in tests/integration/cloudflare_promises_test.ts).
import { KvWebhookDedupe } from "../../src/backends/kv/dedupe.ts";
import { MemoryWebhookDedupe } from "../../src/backends/memory/dedupe.ts";
import { redeliveryWhileProcessing } from "../helpers/dedupe_redelivery.ts";

Deno.test("dedupe (memory): a redelivery while the first runs gets 409 with Retry-After: 5, never duplicate", async () => {
  await redeliveryWhileProcessing(new MemoryWebhookDedupe());
});

Deno.test("dedupe (Deno KV): a redelivery while the first runs gets 409 with Retry-After: 5, never duplicate", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_dedupe_409_" });
  const kv = await Deno.openKv(`${dir}/dedupe.sqlite3`);
  try {
    await redeliveryWhileProcessing(new KvWebhookDedupe(kv));
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
