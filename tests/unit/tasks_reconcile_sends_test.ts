import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { ConnectionException } from "../../src/errors.ts";
import { IdempotencyClaims } from "../../src/store/idempotency.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { matchesContent, recipientJid } from "../../src/tasks/find_sent_message.ts";
import {
  expireStaleClaims,
  LEGACY_PENDING_STALE_MS,
  reconcileSends,
} from "../../src/tasks/reconcile_sends.ts";
import { FakeService, NOW, outbound, serverMessage } from "../fixtures/tasks_fixtures.ts";

const now = () => NOW;
const unknown = { outcomeUnknown: true, createdAt: NOW - 120_000, updatedAt: NOW - 120_000 };

Deno.test("reconcileSends: found → sent with the real id, not found → resendable, content must match", async () => {
  const store = new MemoryStore({ now });
  await store.saveOutbound(outbound("a", NOW - 120_000, unknown));
  await store.saveOutbound(outbound("b", NOW - 119_000, { ...unknown, createdAt: NOW - 119_000 }));
  const service = new FakeService();
  // Only a's text is on the server; a message to b's recipient with other text does not settle b.
  service.delivered.push(serverMessage("hello a", "WA-A"), serverMessage("something else", "WA-X"));
  const result = await reconcileSends({ service, store, now });
  deepStrictEqual(result, {
    expired: 0,
    checked: 2,
    sent: 1,
    notSent: 1,
    undecided: 0,
    dryRun: false,
    results: [{ id: "a", status: "sent", messageId: "WA-A" }, { id: "b", status: "not_sent" }],
  });
  const a = await store.getOutbound("a");
  deepStrictEqual([a?.status, a?.messageId, a?.outcomeUnknown, a?.lastError], [
    "sent",
    "WA-A",
    false,
    undefined,
  ]);
  const b = await store.getOutbound("b");
  deepStrictEqual([b?.status, b?.outcomeUnknown], ["failed", false]);
  strictEqual(b?.lastError, `Not found on the server when reconciled (${new Date(NOW).toISOString()})`);
  // Nothing was sent.
  strictEqual(service.requests.length, 0);
});

Deno.test("reconcileSends: one message on the server settles one record, never two with the same content", async () => {
  const store = new MemoryStore({ now });
  await store.saveOutbound(
    outbound("a1", NOW - 120_000, { ...unknown, body: { number: "5511999999999", text: "same" } }),
  );
  await store.saveOutbound(
    outbound("a2", NOW - 119_000, {
      ...unknown,
      createdAt: NOW - 119_000,
      body: { number: "5511999999999", text: "same" },
    }),
  );
  const service = new FakeService();
  service.delivered.push(serverMessage("same", "WA-ONE"));
  const result = await reconcileSends({ service, store, now });
  deepStrictEqual(result.results, [{ id: "a1", status: "sent", messageId: "WA-ONE" }, {
    id: "a2",
    status: "not_sent",
  }]);
});

Deno.test("reconcileSends: a pending record past claimedUntil becomes unknown; a live one is left alone", async () => {
  const store = new MemoryStore({ now });
  await store.saveOutbound(outbound("dead", NOW - DAY_MS, { status: "pending", claimedUntil: NOW - 1 }));
  await store.saveOutbound(outbound("live", NOW - DAY_MS + 1, { status: "pending", claimedUntil: NOW + 1 }));
  await store.saveOutbound(
    outbound("legacy", NOW - DAY_MS + 2, { status: "pending", updatedAt: NOW - LEGACY_PENDING_STALE_MS }),
  );
  const expired = await expireStaleClaims(store, { now });
  deepStrictEqual(expired.map((r) => [r.id, r.status, r.outcomeUnknown, r.claimedUntil]), [
    ["dead", "failed", true, undefined],
    ["legacy", "failed", true, undefined],
  ]);
  strictEqual((await store.getOutbound("live"))?.status, "pending");
  // Just expired: too recent to look up in the same run.
  const service = new FakeService();
  const result = await reconcileSends({ service, store, now });
  deepStrictEqual(result.results, [
    { id: "dead", status: "undecided", reason: "too_recent" },
    { id: "legacy", status: "undecided", reason: "too_recent" },
  ]);
  strictEqual(service.lookups.length, 0);
});

Deno.test("reconcileSends: a failed lookup leaves the record unknown; bad options are refused", async () => {
  const store = new MemoryStore({ now });
  await store.saveOutbound(outbound("a", NOW - 120_000, unknown));
  const service = new FakeService();
  service.getClient = () => ({
    request: () =>
      Promise.reject(new ConnectionException("Cannot reach gateway server", { reason: "network" })),
  });
  const result = await reconcileSends({ service, store, now });
  deepStrictEqual(result.results, [{
    id: "a",
    status: "undecided",
    reason: "lookup_failed",
    error: "Cannot reach gateway server",
  }]);
  strictEqual((await store.getOutbound("a"))?.outcomeUnknown, true);
  await rejects(() => reconcileSends({ service, store, limit: -1 }), {
    name: "ConfigurationException",
    message: 'Cannot reconcile sends: "limit" must be a non-negative integer, got "-1"',
  });
});

Deno.test("reconcileSends: settling a keyed send settles its idempotency claim", async () => {
  const store = new MemoryStore({ now });
  const claims = new IdempotencyClaims(store.state, { now });
  const scope = { connection: "default", instance: "sales", key: "k-a" };
  const taken = await claims.acquire(scope, { fingerprint: "f", recordId: "a", claimedUntil: NOW + 1000 });
  if (taken.kind !== "owner") throw new Error("not taken");
  await claims.settle(scope, taken.version, { state: "unknown" });
  await store.saveOutbound(outbound("a", NOW - 120_000, { ...unknown, idempotencyKey: "k-a" }));
  const service = new FakeService();
  service.delivered.push(serverMessage("hello a", "WA-A"));
  await reconcileSends({ service, store, now });
  const claim = await claims.read(scope);
  deepStrictEqual([claim?.value.state, claim?.value.messageId], ["done", "WA-A"]);
  deepStrictEqual(
    (claim?.value.response?.body as { key: unknown }).key,
    serverMessage("hello a", "WA-A").key,
  );
});

Deno.test("findSentMessage helpers: the server's JID forms and content matching", () => {
  strictEqual(recipientJid("+55 11 99999-9999"), "5511999999999@s.whatsapp.net");
  // A Brazilian mobile outside area codes below 31 is addressed without its ninth digit.
  strictEqual(recipientJid("5531988887777"), "553188887777@s.whatsapp.net");
  strictEqual(recipientJid("5215512345678"), "525512345678@s.whatsapp.net");
  strictEqual(recipientJid("120363025246125486@g.us"), "120363025246125486@g.us");
  const media = outbound("m", 0, {
    route: "/message/sendMedia/{instance}",
    body: { number: "1", mediatype: "image", media: "https://example.com/a.png", caption: "Look" },
  });
  strictEqual(matchesContent(media, { key: {}, message: { imageMessage: { caption: "Look" } } }), true);
  strictEqual(matchesContent(media, { key: {}, message: { imageMessage: { caption: "Other" } } }), false);
  const audio = outbound("v", 0, {
    route: "/message/sendWhatsAppAudio/{instance}",
    body: { number: "1", audio: "x" },
  });
  strictEqual(
    matchesContent(audio, { key: {}, messageType: "audioMessage", message: { audioMessage: {} } }),
    true,
  );
  strictEqual(
    matchesContent(audio, { key: {}, messageType: "conversation", message: { conversation: "hi" } }),
    false,
  );
});

const DAY_MS = 86_400_000;
