import { deepStrictEqual, match, strictEqual } from "node:assert/strict";
import { KvStore } from "../../src/store/kv.ts";
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
    // Another path than the task's permissions cover is refused up front.
    const elsewhere = await runCli("prune", [], { cwd: dir.path, env: { GATEWAY_KV_PATH: "other.kv" } });
    strictEqual(elsewhere.code, 2);
    strictEqual(
      elsewhere.stderr,
      'error: Requires read access to "other.kv", run again with the --allow-read flag ' +
        "(the task's permissions do not allow it; see docs/cli.md)\n",
    );
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
  });
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
      skipped: 2,
      dryRun: true,
      results: [
        { id: "r1", status: "would_retry", retryCount: 0 },
        { id: "r2", status: "skipped", reason: "outcome_unknown", retryCount: 0 },
        { id: "r3", status: "skipped", reason: "max_retries", retryCount: 3 },
        { id: "r4", status: "would_retry", retryCount: 0 },
        { id: "r5", status: "would_retry", retryCount: 0 },
      ],
    });
    strictEqual(mock.sentMessages.length, 0);
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
    strictEqual(mock.sentMessages.length, 1);
  });

  await t.step("a resend that fails again: exit 1, table, the store updated", async () => {
    const run = await runCli("retry-failed", [], { cwd: dir.path });
    strictEqual(run.code, 1, run.stderr);
    const rows = run.stdout.trimEnd().split("\n").map((line) => line.split(/\s{2,}/));
    deepStrictEqual(rows[0], ["RECORD", "RESULT", "RETRIES", "DETAIL"]);
    deepStrictEqual(rows.slice(1, 5).map((row) => row.slice(0, 3)), [
      ["r1", "sent", "1"],
      ["r2", "skipped", "0"],
      ["r3", "skipped", "3"],
      ["r4", "failed", "1"],
    ]);
    strictEqual(rows[2][3], "outcome_unknown");
    match(rows[4][3], /not on WhatsApp/);
    deepStrictEqual(rows[5], ["Resent 2: 1 sent, 1 failed; 2 skipped"]);
    await withStore(`${dir.path}/gateway.kv`, async (store) => {
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
