import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { runCli, tempDir, writeConfig } from "./cli_helpers.ts";

const KEY = "test-key";

Deno.test("cli send: a paced bulk send from a JSON Lines file; a second run sends nothing twice", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  await using dir = await tempDir();
  await writeConfig(dir.path, {
    server_url: mock.url,
    api_key: KEY,
    instance: "sales",
    rate_limiting: { enabled: false },
  });
  const lines = Array.from(
    { length: 5 },
    (_, i) =>
      JSON.stringify({ idempotencyKey: `launch-${i}`, to: `551190000000${i}`, text: `Launch day ${i}` }),
  );
  await Deno.writeTextFile(`${dir.path}/items.jsonl`, lines.join("\n") + "\n");
  const flags = [
    "items.jsonl",
    "--min-gap",
    "0",
    "--jitter",
    "0",
    "--recipient-interval",
    "0",
    "--no-typing",
  ];

  const first = await runCli("send", [...flags, "--json"], { cwd: dir.path });
  strictEqual(first.code, 0, first.stderr);
  const report = JSON.parse(first.stdout);
  deepStrictEqual([report.total, report.sent, report.skipped, report.failed, report.paused], [5, 5, 0, 0, 0]);
  deepStrictEqual(mock.sentMessages.map((m) => m.text), lines.map((_, i) => `Launch day ${i}`));

  const second = await runCli("send", flags, { cwd: dir.path });
  strictEqual(second.code, 0, second.stderr);
  strictEqual(
    second.stdout,
    `Batch ${report.batchId}: 0 sent, 5 sent before, 0 failed, 0 unknown, 0 not sent (paused)\n`,
  );
  strictEqual(mock.sentMessages.length, 5);

  await Deno.writeTextFile(`${dir.path}/bad.jsonl`, "{not json\n");
  const bad = await runCli("send", ["bad.jsonl"], { cwd: dir.path });
  strictEqual(bad.code, 1);
  strictEqual(bad.stderr.startsWith('error: Cannot read "bad.jsonl": not a JSON array or JSON Lines'), true);
});
