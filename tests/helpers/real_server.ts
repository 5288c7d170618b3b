// The real gateway server of the integration tests (GW_REAL_URL, GW_REAL_KEY; a test is skipped without
// them) and a service on a fresh instance name of its own, recording into a MemoryStore.
import { GatewayService } from "../../src/service.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";

const url = Deno.env.get("GW_REAL_URL");
const key = Deno.env.get("GW_REAL_KEY");

/** True when no real server is configured: pass as a test's `ignore`. */
export const NO_REAL_SERVER: boolean = !url || !key;

/** A service on the real server for a new instance `<prefix>-<8 hex>` (not created yet), no retries. */
export function realServerService(prefix: string): { name: string; store: MemoryStore; gw: GatewayService } {
  const name = `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
  const store = new MemoryStore();
  const gw = new GatewayService({
    server_url: url,
    api_key: key,
    instance: name,
    store,
    retry: { max_retries: 0 },
  });
  return { name, store, gw };
}
