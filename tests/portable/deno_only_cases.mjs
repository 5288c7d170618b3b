// What only Deno has says so, naming the runtime, when used on Node or Bun.
import { rejects, throws } from "node:assert/strict";
import { createWebhookHandler, MemoryStore } from "@gw/gateway";
import { registerScheduledTasks } from "@gw/gateway/tasks";
import { MockGatewayServer } from "@gw/gateway/testing";
import { test } from "./runner.mjs";

const name = globalThis.Bun ? `Bun ${globalThis.Bun.version}` : `Node.js ${process.versions.node}`;

test("Deno-only: Deno.cron, the KV queue and MockGatewayServer fail with an error naming the runtime", async () => {
  const service = { getClient: () => ({ request: () => Promise.resolve({ data: {} }) }) };
  throws(() => registerScheduledTasks({ service, store: new MemoryStore() }), {
    message: new RegExp(
      `^Cannot use Deno\\.cron on ${name.replaceAll(".", "\\.")}: it needs Deno; pass \`cron\``,
    ),
  });
  throws(() => createWebhookHandler({ signature: { secret: "s" }, queue: { enabled: true, mode: "kv" } }), {
    name: "ConfigurationException",
    message: new RegExp(
      `^Cannot use the Deno KV queue \\(queue\\.mode "kv"\\) on ${name.replaceAll(".", "\\.")}`,
    ),
  });
  await rejects(MockGatewayServer.start(), {
    message: new RegExp(`^Cannot use MockGatewayServer on ${name.replaceAll(".", "\\.")}`),
  });
});

test("without Deno the webhook handler's default queue mode processes in the request (no KV to open)", async () => {
  const handler = createWebhookHandler({ signature: { secret: "s" }, queue: true, metrics: false });
  await handler.close();
});
