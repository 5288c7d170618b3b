/**
 * `deno task demo`: the whole round trip on embedded defaults, with no gateway server and no configuration.
 *
 * It starts the simulated gateway server and a webhook receiver (`createWebhookHandler` under `Deno.serve`)
 * on free loopback ports, with a local Deno KV file as the store; creates an instance; points the instance's
 * webhook at the receiver (signed the way the reference server signs: a JWT from `jwt_key`); connects (the QR
 * code is drawn in the terminal, then the scan is simulated); sends a text; receives the `send.message`
 * event and a simulated inbound message through registered handlers; and prints a summary. Everything it
 * opens is closed before it exits.
 *
 * @module
 */

import {
  createWebhookHandler,
  GatewayService,
  KvStore,
  MessageSent,
  type WebhookPayloadDto,
  WebhookProcessor,
} from "../mod.ts";
import { MockGatewayServer } from "../src/testing/mod.ts";
import { renderQr } from "../src/cli/qr_terminal.ts";

const API_KEY = "demo-global-key";
const WEBHOOK_SECRET = crypto.randomUUID();
const INSTANCE = "demo";
const CUSTOMER = "5511999990000";

// Colour only on a terminal, and never with NO_COLOR set (https://no-color.org): a pipe or a log file gets
// plain text.
const COLOR = Deno.stdout.isTerminal() && !Deno.noColor;

function step(text: string): void {
  console.log(`\n▸ ${text}`);
}

/** Resolve when `predicate` holds, checking after every webhook the receiver handles. */
function waitFor(processor: WebhookProcessor, predicate: () => boolean, what: string): Promise<void> {
  if (predicate()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), 10_000);
    const check = () => {
      if (!predicate()) return;
      clearTimeout(timer);
      processor.removeHandler(check);
      resolve();
    };
    processor.onAny(check);
  });
}

const dir = await Deno.makeTempDir({ prefix: "gateway-demo-" });
const kv = await Deno.openKv(`${dir}/gateway.kv`);
const store = new KvStore(kv);
const mock = await MockGatewayServer.start({ apiKey: API_KEY });

const received: WebhookPayloadDto[] = [];
const processor = new WebhookProcessor({ store })
  .on("send.message", (payload) => {
    received.push(payload);
    console.log(`  webhook send.message     id=${payload.messageId} to=${payload.remoteJid}`);
  })
  .on("messages.upsert", (payload) => {
    received.push(payload);
    if (payload.isInboundMessage) {
      console.log(`  webhook messages.upsert  from=${payload.senderJid} text="${payload.text}"`);
    }
  })
  .on("connection.update", (payload) => {
    console.log(`  webhook connection.update state=${payload.connectionState}`);
  });
const handler = createWebhookHandler({
  signature: { scheme: "jwt", secret: WEBHOOK_SECRET },
  processor,
  store,
});
const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
const receiverUrl = `http://127.0.0.1:${receiver.addr.port}`;

let exitCode = 0;
try {
  console.log("@gw/gateway demo: simulated gateway server + webhook receiver + local Deno KV store");
  console.log(`  gateway server  ${mock.url}`);
  console.log(`  webhook route   ${receiverUrl}/gateway/webhook/${INSTANCE}`);
  console.log(`  KV file         ${dir}/gateway.kv`);

  const gw = GatewayService.make({ server_url: mock.url, api_key: API_KEY, store });
  const sent: MessageSent[] = [];
  gw.events.addEventListener(MessageSent.type, (event) => sent.push(event as MessageSent));

  step(`Server ${(await gw.info()).version} reachable: creating instance "${INSTANCE}"`);
  const created = await gw.instances().create(INSTANCE);
  console.log(
    `  status=${created.json("instance.status")} token=${String(created.json("hash")).slice(0, 8)}…`,
  );

  step("Pointing the instance's webhook at the receiver (JWT-signed, as the reference server does)");
  const demo = gw.instance(INSTANCE);
  await demo.webhooks().set({
    url: `${receiverUrl}/gateway/webhook/${INSTANCE}`,
    events: ["CONNECTION_UPDATE", "SEND_MESSAGE", "MESSAGES_UPSERT"],
    headers: { jwt_key: WEBHOOK_SECRET },
  });

  step("Connecting: scan this QR code with the phone (simulated below)");
  const qr = await demo.instances().getQrCode();
  if (qr?.code) console.log(renderQr(qr.code, { style: COLOR ? "ansi" : "plain" }));
  mock.simulateScan(INSTANCE);
  const state = await demo.instances().waitForConnection(undefined, { timeoutMs: 10_000, intervalMs: 50 });
  console.log(`  state=${state.instance.state}`);

  step(`Sending a text to ${CUSTOMER}`);
  const res = await demo.messages().text(CUSTOMER, "Hello from @gw/gateway");
  const messageId = String(res.json("key.id"));
  console.log(`  201 key.id=${messageId} status=${res.json("status")}`);
  await waitFor(processor, () => received.some((p) => p.event === "SEND_MESSAGE"), "send.message");

  step("The customer answers (simulated inbound message)");
  mock.simulateInboundMessage(INSTANCE, { from: CUSTOMER, text: "Hi! I'd like to order." });
  await waitFor(processor, () => received.some((p) => p.isInboundMessage), "messages.upsert");
  await mock.webhooksIdle();

  step("Summary");
  const inbound = received.find((p) => p.isInboundMessage)!;
  const record = (await store.listOutbound({ limit: 10 }))[0];
  const metrics = gw.getMetrics();
  console.log(`  message sent        ${messageId} (MessageSent events: ${sent.length})`);
  console.log(`  outbound record     ${record?.status} messageId=${record?.messageId}`);
  console.log(
    `  inbound stored      ${(await store.getInbound(INSTANCE, inbound.messageId!)) ? "yes" : "no"}`,
  );
  console.log(
    `  webhook deliveries  ${mock.deliveries.length} (all ${
      mock.deliveries.every((d) => d.state === "delivered") ? "delivered" : "not delivered"
    })`,
  );
  console.log(`  requests            ${metrics.total("gateway_requests_total")}`);
  console.log(`  messages sent       ${metrics.total("gateway_messages_sent_total")}`);
  console.log(`  webhooks received   ${handler.metrics?.total("gateway_webhooks_received_total") ?? 0}`);
  if (sent.length !== 1 || record?.status !== "sent") throw new Error("the demo did not complete");
  console.log("\nDemo complete.");
} catch (error) {
  console.error(`\nDemo failed: ${error instanceof Error ? error.message : String(error)}`);
  exitCode = 1;
} finally {
  await receiver.shutdown();
  await handler.close();
  await mock.close();
  kv.close();
  await Deno.remove(dir, { recursive: true });
}
Deno.exit(exitCode);
