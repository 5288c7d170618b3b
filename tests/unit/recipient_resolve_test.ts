import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { MessageException, ValidationException } from "../../src/errors.ts";
import { GatewayService } from "../../src/service.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { BASE, KEY, newSim } from "../helpers/simulator.ts";
import type { GatewaySimulator } from "../../src/testing/mod.ts";

function setup(sim: GatewaySimulator, config: Record<string, unknown> = {}) {
  sim.addInstance("sales", { open: true });
  const store = new MemoryStore();
  const gw = new GatewayService(
    { server_url: BASE, api_key: KEY, instance: "sales", store, ...config },
    { fetch: sim.fetch },
  );
  return { gw, store };
}

function numberChecks(sim: GatewaySimulator) {
  return sim.requests.filter((r) => r.path === "/chat/whatsappNumbers/sales");
}

Deno.test("send with resolve: a BR number whose account exists only without the 9th digit reaches that JID; the second send uses the cache", async () => {
  await using sim = newSim();
  sim.registerAccount("551199998888");
  const { gw } = setup(sim);

  const first = await gw.messages().text("+55 11 99999-8888", "Olá", {}, { resolve: true });
  strictEqual(first.resolvedJid, "551199998888@s.whatsapp.net");
  strictEqual(first.recipientRewritten, true);
  strictEqual(first.json("key.remoteJid"), "551199998888@s.whatsapp.net");

  const second = await gw.messages().text("5511999998888", "De novo", {}, { resolve: true });
  strictEqual(second.resolvedJid, "551199998888@s.whatsapp.net");

  // One whatsappNumbers call in all, asking for the number and its variant at once.
  const checks = numberChecks(sim);
  strictEqual(checks.length, 1);
  deepStrictEqual(checks[0].body, { numbers: ["5511999998888", "551199998888"] });
  // Both sends went to the account's JID.
  deepStrictEqual(sim.sentMessages.map((m) => [m.number, m.remoteJid]), [
    ["551199998888@s.whatsapp.net", "551199998888@s.whatsapp.net"],
    ["551199998888@s.whatsapp.net", "551199998888@s.whatsapp.net"],
  ]);
});

Deno.test("resolve as the service default (recipients.resolve); a call can turn it off", async () => {
  await using sim = newSim();
  sim.registerAccount("5215512345678");
  const { gw } = setup(sim, { recipients: { resolve: true, cache_ttl_seconds: 60 } });
  const res = await gw.messages().text("525512345678", "Hola");
  strictEqual(res.resolvedJid, "5215512345678@s.whatsapp.net");
  strictEqual(res.recipientRewritten, true);
  const plain = await gw.messages().text("525512345678", "Hola", {}, { resolve: false });
  strictEqual(plain.resolvedJid, undefined);
  strictEqual(numberChecks(sim).length, 1);
});

Deno.test("resolveRecipient: the number as given wins when it exists; the cache expires after its TTL", async () => {
  await using sim = newSim();
  let now = 1_000_000;
  sim.addInstance("sales", { open: true });
  const gw = new GatewayService(
    { server_url: BASE, api_key: KEY, instance: "sales", store: new MemoryStore({ now: () => now }) },
    { fetch: sim.fetch, now: () => now },
  );
  const resolved = await gw.messages().resolveRecipient("5511999998888");
  deepStrictEqual(resolved, {
    number: "5511999998888",
    jid: "5511999998888@s.whatsapp.net",
    rewritten: false,
    cached: false,
  });
  strictEqual((await gw.messages().resolveRecipient("551199998888")).cached, true);
  now += 7 * 86_400_000;
  strictEqual((await gw.messages().resolveRecipient("5511999998888")).cached, false);
  strictEqual(numberChecks(sim).length, 2);
});

Deno.test("resolveRecipient: not on WhatsApp throws not_on_whatsapp and nothing is sent; national numbers are refused before any request", async () => {
  await using sim = newSim();
  sim.registerAccount("14155550100");
  const { gw } = setup(sim);
  await rejects(
    () => gw.messages().text("5511999998888", "Oi", {}, { resolve: true }),
    (error: unknown) =>
      error instanceof MessageException && error.reason === "not_on_whatsapp" &&
      error.message ===
        'Cannot send to "5511999998888": not on WhatsApp (checked "5511999998888", "551199998888")',
  );
  strictEqual(sim.sentMessages.length, 0);
  const before = sim.requests.length;
  await rejects(() => gw.messages().resolveRecipient("11 99999-8888"), ValidationException);
  strictEqual(sim.requests.length, before);
});

Deno.test("resolveRecipient: JIDs are addresses already (no request)", async () => {
  await using sim = newSim();
  const { gw } = setup(sim);
  for (const jid of ["123456789012345@lid", "120363025246125888@g.us", "5511999998888@s.whatsapp.net"]) {
    deepStrictEqual(await gw.messages().resolveRecipient(jid), {
      number: jid,
      jid,
      rewritten: false,
      cached: false,
    });
  }
  strictEqual(numberChecks(sim).length, 0);
});
