import { deepStrictEqual } from "node:assert/strict";

// State lives in the object that owns it (a service, a receiver, a bot) or in an injected dependency, so
// that no test shares it with another and no file must run alone. A module-level `let`, or a module-level
// collection created empty (filled at run time), is mutable module state: each one left is listed here with
// why it must stay. A collection created with its contents (`new Set(["a", "b"])`) is a constant table.
const ALLOWED: Readonly<Record<string, string>> = {
  // The seed's process-wide defaults: a module is their only owner (`export default { fetch: handleWebhook }`
  // has no object to hold a receiver; the facade `GatewayApi` is the process's default service by definition).
  "src/gateway_api.ts: defaultService": "the facade's default service, built on first use",
  "src/gateway_api.ts: fakeFactory":
    "set by @gw/gateway/testing when loaded, so the root never loads the simulator",
  "src/webhooks/default_handler.ts: defaultProcessor":
    "webhookProcessor(), the processor behind handleWebhook",
  "src/webhooks/default_handler.ts: defaultHandler": "handleWebhook's receivers, one per environment",
  // Lines the docs promise to say once per process (not once per receiver a process builds).
  "src/webhooks/pipeline/guard.ts: reported": "a misconfigured receiver's 503 cause, said once per process",
  "src/webhooks/verify/secrets.ts: said": "a weak or reshaped secret, said once per process",
  // A fact about the process, not about an object: a network permission granted stays granted.
  "src/client/send_fetch.ts: granted": "origins whose net permission the process was granted",
  // Memos of pure functions: the same key always gives the same value, whoever asks.
  "src/dto/body_spec.ts: fieldLists": "memo: a body spec's field list",
  "src/metrics/series.ts: seriesKeys": "memo: a label set's series key",
  "src/metrics/series.ts: routeLabels": "memo: a path's route label",
  "src/client/prepared_request.ts: templates": "memo: a route template's parts",
  "src/client/prepared_request.ts: plainTargets": "memo: a connection's request targets",
  "src/client/prepared_request.ts: plainHeaders": "memo: a connection's headers",
  "src/webhooks/pipeline/respond.ts: INITS": "memo: the ResponseInit of a status",
  "src/webhooks/events/names.ts: memo": "memo: an event name's canonical form",
  "src/webhooks/verify/verifier.ts: byIdentity": "memo: verifyWebhook's verifier per options object",
  "src/webhooks/verify/verifier.ts: byContent":
    "memo: verifyWebhook's verifier per options content (bounded)",
  "src/util/sha256.ts: buffer": "scratch buffer, holds nothing between calls",
  // Side tables: state of the key object (an injected store, clock, client), gone with it; tests inject
  // their own key, so no two tests share an entry.
  "src/pacing/recipient_times.ts: timesByState": "a MemoryState's recipient times",
  "src/bot/local_order.ts: linesByState": "a MemoryState's chat lines",
  "src/bot/own_sends.ts: watchers": "an event target's own-send watchers",
  "src/bot/conversation/record_store.ts: chunkCache": "a state store's immutable log chunks",
  "src/bot/conversation/stored.ts: rebuilt": "a stored wait's rebuilt form",
  "src/resources/resource.ts: fallbackClaims": "a client's idempotency claims",
  "src/resources/resource.ts: fallbackPipelines": "a resource context's send pipeline",
  "src/webhooks/queue/settler.ts: reportsByProcessor": "a processor's rate-limited queue failure lines",
  "src/testing/simulator/routes/integrations.ts: stores": "a simulated instance's integration rows",
  "src/testing/simulator/routes/chatbots.ts: stores": "a simulated instance's chatbots",
};

const STATE =
  /^(?:export )?(?:(?:let|var) (\w+)|const (\w+)(?::[^=]+)? = (?:new (?:Map|Set|WeakMap|WeakSet)(?:<.*>)?\(\)|\[\]|\{\});)/;

async function sourceFiles(dir: URL, prefix: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      files.push(...await sourceFiles(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    } else if (entry.name.endsWith(".ts")) files.push(`${prefix}${entry.name}`);
  }
  return files;
}

Deno.test("src/ declares no mutable module-level state but the listed ones, each with its reason", async () => {
  const root = new URL("../../", import.meta.url);
  const found: string[] = [];
  for (const file of await sourceFiles(new URL("src/", root), "src/")) {
    for (const line of (await Deno.readTextFile(new URL(file, root))).split("\n")) {
      const match = STATE.exec(line);
      if (match !== null) found.push(`${file}: ${match[1] ?? match[2]}`);
    }
  }
  deepStrictEqual(found.filter((name) => !(name in ALLOWED)), []);
  // A listed one that is gone is removed from the list (so the list stays the truth).
  deepStrictEqual(Object.keys(ALLOWED).filter((name) => !found.includes(name)), []);
});
