import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { KvStore } from "../../src/backends/kv/store.ts";
import type { OutboundMessageRecord } from "../../src/store/store.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { runCli, tempDir, writeConfig } from "./cli_helpers.ts";

const KEY = "test-key";
const DAY = 86_400_000;

function outbound(id: string, overrides: Partial<OutboundMessageRecord> = {}): OutboundMessageRecord {
  const createdAt = overrides.createdAt ?? Date.now() - DAY;
  const recipient = overrides.recipient ?? "5511999990001";
  return {
    id,
    connection: "default",
    instance: "sales",
    recipient,
    type: "text",
    route: "/message/sendText/{instance}",
    body: { number: recipient, text: `hello ${id}` },
    status: "failed",
    outcomeUnknown: false,
    retryCount: 0,
    lastError: "Cannot reach gateway server",
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

async function withStore<T>(path: string, fn: (store: KvStore) => Promise<T>): Promise<T> {
  const kv = await Deno.openKv(path);
  try {
    return await fn(new KvStore(kv));
  } finally {
    kv.close();
  }
}

Deno.test("cli prune: counts and removes old records in the KV file", async (t) => {
  await using dir = await tempDir();
  const old = Date.now() - 40 * DAY;
  const recent = Date.now() - DAY;
  await withStore(`${dir.path}/gateway.kv`, async (store) => {
    await store.saveOutbound(outbound("o-old-1", { createdAt: old, status: "sent" }));
    await store.saveOutbound(outbound("o-old-2", { createdAt: old }));
    await store.saveOutbound(outbound("o-new", { createdAt: recent }));
    await store.saveInbound({
      id: "i-old",
      instance: "sales",
      remoteJid: "x@s.whatsapp.net",
      payload: {},
      receivedAt: old,
    });
    await store.saveInbound({
      id: "i-new",
      instance: "sales",
      remoteJid: "x@s.whatsapp.net",
      payload: {},
      receivedAt: recent,
    });
    await store.saveWebhookLog({
      id: "w-old",
      event: "MESSAGES_UPSERT",
      instance: "sales",
      receivedAt: old,
      status: "processed",
      updatedAt: old,
    });
    await store.saveInstanceSnapshot({
      connection: "default",
      instance: "sales",
      state: "open",
      updatedAt: recent,
    });
  });
  await writeConfig(dir.path, { server_url: "http://127.0.0.1:9", api_key: KEY });

  await t.step("--dry-run --json counts without removing", async () => {
    const run = await runCli("prune", ["--dry-run", "--json"], { cwd: dir.path });
    strictEqual(run.stderr, "");
    strictEqual(run.code, 0);
    const report = JSON.parse(run.stdout);
    match(report.before, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    deepStrictEqual({ ...report, before: "x" }, {
      store: "gateway.kv",
      dryRun: true,
      days: 30,
      before: "x",
      counts: { outbound: 2, inbound: 1, webhook_logs: 1, instances: 0 },
      total: 4,
    });
  });

  await t.step("--kind limits the kinds; the table and summary", async () => {
    const run = await runCli("prune", ["--days", "35", "--kind", "outbound", "--kind", "webhook_logs"], {
      cwd: dir.path,
    });
    strictEqual(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    deepStrictEqual(lines.slice(0, 3).map((line) => line.split(/\s{2,}/)), [
      ["KIND", "REMOVED"],
      ["outbound", "2"],
      ["webhook_logs", "1"],
    ]);
    match(lines[3], /^Removed 3 records older than 35 days \(before \S+Z\) from gateway\.kv$/);
  });

  await t.step("the rest, then nothing left to prune", async () => {
    const first = JSON.parse((await runCli("prune", ["--json"], { cwd: dir.path })).stdout);
    deepStrictEqual(first.counts, { outbound: 0, inbound: 1, webhook_logs: 0, instances: 0 });
    const second = JSON.parse((await runCli("prune", ["--json"], { cwd: dir.path })).stdout);
    strictEqual(second.total, 0);
    await withStore(`${dir.path}/gateway.kv`, async (store) => {
      deepStrictEqual((await store.listOutbound()).map((r) => r.id), ["o-new"]);
      strictEqual((await store.getInbound("sales", "i-new"))?.id, "i-new");
    });
  });

  await t.step("bad values and a missing store: exit 2", async () => {
    const zero = await runCli("prune", ["--days", "0"], { cwd: dir.path });
    strictEqual(zero.code, 2);
    strictEqual(
      zero.stderr,
      'error: Cannot parse arguments: "--days" must be a positive number, got "0" (see "prune --help")\n',
    );
    const kind = await runCli("prune", ["--kind", "everything"], { cwd: dir.path });
    strictEqual(kind.code, 2);
    strictEqual(
      kind.stderr,
      'error: Cannot parse arguments: unknown kind "everything" for "--kind" (expected one of outbound, inbound, webhook_logs, instances) (see "prune --help")\n',
    );
    // Another path than the task's permissions cover is refused up front: cli_smoke_test.ts.
    for (const suffix of ["", "-wal", "-shm"]) {
      await Deno.remove(`${dir.path}/gateway.kv${suffix}`).catch(() => {});
    }
    const missing = await runCli("prune", [], { cwd: dir.path });
    strictEqual(missing.code, 2);
    strictEqual(
      missing.stderr,
      'error: Cannot open store: "gateway.kv" does not exist (set "kv.path" in gateway-api.json or GATEWAY_KV_PATH)\n',
    );
  });
});

Deno.test("cli retry-failed: resends failed messages through the mock server", async (t) => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  mock.addInstance("support", { open: true });
  mock.setNotOnWhatsApp("5511999990009");
  await using dir = await tempDir();
  const base = Date.now() - 10 * DAY;
  await withStore(`${dir.path}/gateway.kv`, async (store) => {
    await store.saveOutbound(outbound("r1", { createdAt: base + 1 }));
    await store.saveOutbound(outbound("r2", { createdAt: base + 2, outcomeUnknown: true }));
    await store.saveOutbound(outbound("r3", { createdAt: base + 3, retryCount: 3 }));
    await store.saveOutbound(outbound("r4", { createdAt: base + 4, recipient: "5511999990009" }));
    await store.saveOutbound(outbound("r5", { createdAt: base + 5, instance: "support" }));
    await store.saveOutbound(outbound("r6", { createdAt: base + 6, status: "sent" }));
    // Its first attempt ended with an unknown outcome, but the server did send it.
    await store.saveOutbound(outbound("r7", { createdAt: Date.now() - 120_000, outcomeUnknown: true }));
  });
  const direct = await fetch(`${mock.url}/message/sendText/sales`, {
    method: "POST",
    headers: { apikey: KEY, "content-type": "application/json" },
    body: JSON.stringify({ number: "5511999990001", text: "hello r7" }),
  });
  strictEqual(direct.status, 201);
  const r7MessageId = (await direct.json()).key.id;
  await writeConfig(dir.path, { server_url: mock.url, api_key: KEY, retry: { max_retries: 0 } });

  await t.step("--dry-run lists what would be resent, sends nothing", async () => {
    const run = await runCli("retry-failed", ["--dry-run", "--json"], { cwd: dir.path });
    strictEqual(run.code, 0, run.stderr);
    deepStrictEqual(JSON.parse(run.stdout), {
      store: "gateway.kv",
      maxRetries: 3,
      limit: 100,
      instance: null,
      attempted: 3,
      sent: 0,
      failed: 0,
      reconciled: 0,
      skipped: 3,
      dryRun: true,
      results: [
        { id: "r1", status: "would_retry", retryCount: 0 },
        { id: "r2", status: "skipped", reason: "outcome_unknown", retryCount: 0 },
        { id: "r3", status: "skipped", reason: "max_retries", retryCount: 3 },
        { id: "r4", status: "would_retry", retryCount: 0 },
        { id: "r5", status: "would_retry", retryCount: 0 },
        { id: "r7", status: "skipped", reason: "outcome_unknown", retryCount: 0 },
      ],
    });
    strictEqual(mock.sentMessages.length, 1);
  });

  await t.step("--instance and --limit", async () => {
    const run = await runCli("retry-failed", ["--instance", "support", "--limit", "5", "--json"], {
      cwd: dir.path,
    });
    strictEqual(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    strictEqual(report.results.length, 1);
    const [only] = report.results;
    strictEqual(typeof only.messageId, "string");
    deepStrictEqual({ ...only, messageId: "x" }, { id: "r5", status: "sent", messageId: "x", retryCount: 1 });
    strictEqual(mock.sentMessages.length, 2);
  });

  await t.step("a resend that fails again: exit 1, table, the store updated", async () => {
    const run = await runCli("retry-failed", [], { cwd: dir.path });
    strictEqual(run.code, 1, run.stderr);
    const rows = run.stdout.trimEnd().split("\n").map((line) => line.split(/\s{2,}/));
    deepStrictEqual(rows[0], ["RECORD", "RESULT", "RETRIES", "DETAIL"]);
    // r2's outcome was unknown and it is not on the server: resent. r7 is on the server: not resent.
    deepStrictEqual(rows.slice(1, 6).map((row) => row.slice(0, 3)), [
      ["r1", "sent", "1"],
      ["r2", "sent", "1"],
      ["r3", "skipped", "3"],
      ["r4", "failed", "1"],
      ["r7", "reconciled", "0"],
    ]);
    match(rows[4][3], /not on WhatsApp/);
    strictEqual(rows[5][3], r7MessageId);
    deepStrictEqual(rows[6], ["Resent 3: 2 sent, 1 failed; 1 found already sent; 1 skipped"]);
    strictEqual(mock.sentMessages.filter((sent) => sent.text === "hello r7").length, 1);
    await withStore(`${dir.path}/gateway.kv`, async (store) => {
      strictEqual((await store.getOutbound("r7"))?.messageId, r7MessageId);
      strictEqual((await store.getOutbound("r1"))?.status, "sent");
      strictEqual((await store.getOutbound("r4"))?.status, "failed");
      strictEqual((await store.getOutbound("r4"))?.retryCount, 1);
    });
  });

  await t.step("bad values: exit 2", async () => {
    const run = await runCli("retry-failed", ["--max-retries", "1.5"], { cwd: dir.path });
    strictEqual(run.code, 2);
    strictEqual(
      run.stderr,
      'error: Cannot parse arguments: "--max-retries" must be an integer >= 0, got "1.5" (see "retry-failed --help")\n',
    );
    const limit = await runCli("retry-failed", ["--limit", "0"], { cwd: dir.path });
    strictEqual(limit.code, 2);
    strictEqual(
      limit.stderr,
      'error: Cannot parse arguments: "--limit" must be a positive integer, got "0" (see "retry-failed --help")\n',
    );
  });
});

Deno.test("cli reconcile-sends: settles unknown outcomes against the mock server", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  await using dir = await tempDir();
  const direct = await fetch(`${mock.url}/message/sendText/sales`, {
    method: "POST",
    headers: { apikey: KEY, "content-type": "application/json" },
    body: JSON.stringify({ number: "5511999990001", text: "hello u1" }),
  });
  const delivered = (await direct.json()).key.id;
  const attempt = Date.now() - 120_000;
  await withStore(`${dir.path}/gateway.kv`, async (store) => {
    await store.saveOutbound(outbound("u1", { createdAt: attempt, outcomeUnknown: true }));
    await store.saveOutbound(outbound("u2", { createdAt: attempt + 1, outcomeUnknown: true }));
    // Left pending by a process that died mid-send: its claim has ended.
    await store.saveOutbound(
      outbound("p1", { createdAt: attempt + 2, status: "pending", claimedUntil: attempt }),
    );
  });
  await writeConfig(dir.path, { server_url: mock.url, api_key: KEY });

  const dry = await runCli("reconcile-sends", ["--dry-run", "--json"], { cwd: dir.path });
  strictEqual(dry.code, 0, dry.stderr);
  deepStrictEqual(JSON.parse(dry.stdout).results, [
    { id: "u1", status: "would_check" },
    { id: "u2", status: "would_check" },
  ]);

  // p1 has just become unknown: too recent to look up, so it stays unknown and the exit code says so.
  const run = await runCli("reconcile-sends", ["--json"], { cwd: dir.path });
  strictEqual(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  deepStrictEqual(report.results, [
    { id: "p1", status: "expired" },
    { id: "u1", status: "sent", messageId: delivered },
    { id: "u2", status: "not_sent" },
    { id: "p1", status: "undecided", reason: "too_recent" },
  ]);
  deepStrictEqual([report.expired, report.checked, report.sent, report.notSent, report.undecided], [
    1,
    3,
    1,
    1,
    1,
  ]);

  const again = await runCli("reconcile-sends", ["--min-age", "0"], { cwd: dir.path });
  strictEqual(again.code, 0, again.stderr);
  match(again.stdout, /Looked up 1: 0 sent, 1 not sent, 0 still unknown; 0 expired claim\(s\)/);
  await withStore(`${dir.path}/gateway.kv`, async (store) => {
    const u1 = await store.getOutbound("u1");
    deepStrictEqual([u1?.status, u1?.messageId, u1?.outcomeUnknown], ["sent", delivered, false]);
    const u2 = await store.getOutbound("u2");
    deepStrictEqual([u2?.status, u2?.outcomeUnknown], ["failed", false]);
    const p1 = await store.getOutbound("p1");
    deepStrictEqual([p1?.status, p1?.outcomeUnknown, p1?.claimedUntil], ["failed", false, undefined]);
  });
  // Nothing was sent by reconcile itself.
  strictEqual(mock.sentMessages.length, 1);
});

Deno.test("cli reconcile: stores the inbound messages the receiver never got, counts seen/recovered, a second run recovers nothing", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  // No webhook is configured: every inbound message below is one the receiver never got.
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < 12; i++) {
    mock.simulateInboundMessage("sales", {
      from: i % 2 === 0 ? "5511999990001" : "5511999990002",
      text: `hi ${i}`,
      id: `M${i}`,
      timestamp: now - 600 + i,
    });
  }
  await using dir = await tempDir();
  await withStore(`${dir.path}/gateway.kv`, (store) => store.state.set("init", "x", 1).then(() => {}));
  await writeConfig(dir.path, { server_url: mock.url, api_key: KEY, instance: "sales" });

  const first = await runCli("reconcile", ["--json"], { cwd: dir.path });
  strictEqual(first.code, 0, first.stderr);
  deepStrictEqual(JSON.parse(first.stdout), {
    store: "gateway.kv",
    seen: 12,
    recovered: 12,
    instances: [{ instance: "sales", chats: 2, seen: 12, recovered: 12, complete: true, errors: [] }],
  });
  await withStore(`${dir.path}/gateway.kv`, async (store) => {
    strictEqual((await store.getInbound("sales", "M7"))?.text, "hi 7");
  });

  const second = await runCli("reconcile", [], { cwd: dir.path });
  strictEqual(second.code, 0, second.stderr);
  const lines = second.stdout.trimEnd().split("\n");
  deepStrictEqual(lines[0].split(/\s{2,}/), ["INSTANCE", "CHATS", "SEEN", "RECOVERED", "COMPLETE"]);
  deepStrictEqual(lines[1].split(/\s{2,}/), ["sales", "2", "12", "0", "yes"]);
  strictEqual(lines.at(-1), "Seen 12 inbound messages, recovered 0 (store gateway.kv)");
});
