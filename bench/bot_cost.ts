/**
 * The bot's own cost per update: a `Bot` answering each text with `ctx.reply(text)` against a bare
 * `WebhookProcessor` handler that sends the same reply through the same service, in the same process.
 *
 * Both run on one `MemoryStore` (so both claim each message once) and one service whose fetch is an
 * in-process stub answering 201 with a sendText messageRaw, so the figure is the bot's work (update
 * normalisation, context, per-chat turn, pause check, idempotency key and claim, pacing, the record of its
 * own message ids) and not the network. Each block runs `--per-block` updates (new message ids, 64 chats in
 * turn, the shared clock 2 s further at each update so the per-chat pacing gap never makes a reply wait)
 * through each variant, in alternating order; the figure is the median over the blocks of the per-block
 * ratio of the mean time per update.
 *
 * With `--http`, the service talks to a stub server in its own process on 127.0.0.1 over real HTTP instead
 * (the same answer), as a bot talks to a gateway server on the same host.
 *
 *   deno run -A --lock=tests/npm/deno.lock bench/bot_cost.ts [--blocks 30] [--per-block 400] [--http]
 */

import { GatewayService } from "../src/service.ts";
import { MemoryStore } from "../src/backends/memory/store.ts";
import { WebhookPayloadDto } from "../src/webhooks/payload.ts";
import { WebhookProcessor } from "../src/webhooks/processor.ts";
import { Bot, type BotOptions } from "../src/bot/mod.ts";
import { median } from "./stats.ts";
import { startStubProcess, type StubProcess } from "./stub_process.ts";

function arg(name: string, fallback: number): number {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
}

const BLOCKS = arg("blocks", 30);
const PER_BLOCK = arg("per-block", 400);
const CHATS = 64;

// One clock for every collaborator, 2 s further at each update: a chat's pacing gap (1 s) has always passed,
// so pacing costs its reads and writes but never a wait.
let clock = Date.now();
const now = () => clock;

const HTTP = Deno.args.includes("--http");

let sentCount = 0;
/** The gateway server, in-process: every send answered like sendText's 201. */
const stubFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const body = await request.json() as { number: string; text: string };
  const id = `3EB0${(++sentCount).toString(16).toUpperCase().padStart(18, "0")}`;
  return Response.json({
    key: { remoteJid: body.number, fromMe: true, id },
    pushName: "Você",
    status: "PENDING",
    message: { conversation: body.text },
    contextInfo: null,
    messageType: "conversation",
    messageTimestamp: Math.floor(Date.now() / 1000),
    instanceId: "bench-instance-id",
    source: "unknown",
  }, { status: 201 });
};

/** The stub server in its own process (`--http`): answers every request like sendText's 201. */
function startStub(): Promise<StubProcess> {
  return startStubProcess(JSON.stringify({
    key: { remoteJid: "5511900000000@s.whatsapp.net", fromMe: true, id: "3EB0BENCH" },
    pushName: "Você",
    status: "PENDING",
    message: { conversation: "x" },
    contextInfo: null,
    messageType: "conversation",
    messageTimestamp: 1760000000,
    instanceId: "bench-instance-id",
    source: "unknown",
  }));
}

const stub = HTTP ? await startStub() : undefined;

function service(store: MemoryStore): GatewayService {
  return new GatewayService({
    server_url: stub?.url ?? "http://gateway.bench",
    api_key: "bench-key",
    instance: "bench",
    store,
    rate_limiting: { enabled: false },
  }, { fetch: stub === undefined ? stubFetch : undefined });
}

let messageCount = 0;
function update(): WebhookPayloadDto {
  const n = ++messageCount;
  const chat = `55119${String(n % CHATS).padStart(8, "0")}@s.whatsapp.net`;
  return WebhookPayloadDto.from({
    event: "messages.upsert",
    instance: "bench",
    sender: "5511900000000@s.whatsapp.net",
    data: {
      key: { remoteJid: chat, fromMe: false, id: `BENCH${n.toString(16).toUpperCase().padStart(12, "0")}` },
      pushName: "Load",
      message: { conversation: `message ${n}` },
      messageType: "conversation",
      messageTimestamp: 1_760_000_000,
    },
  })!;
}

type Variant = {
  name: string;
  handle: (payload: WebhookPayloadDto) => Promise<void>;
  close: () => Promise<void>;
};

function bare(idempotent: boolean): Variant {
  const store = new MemoryStore({ now });
  const api = service(store).instance("bench");
  const processor = new WebhookProcessor({ store });
  processor.on("messages.upsert", async (payload) => {
    if (payload.fromMe || payload.chatJid === undefined || payload.text === undefined) return;
    const idempotencyKey = idempotent ? `bare:${payload.messageId}:0` : undefined;
    await api.messages().text(payload.chatJid, payload.text, { idempotencyKey });
  });
  return {
    name: idempotent ? "bare handler, send with an idempotency key" : "bare processor handler",
    handle: (payload) => processor.process(payload),
    close: async () => {},
  };
}

function bot(name: string, options: BotOptions): Variant {
  const store = new MemoryStore({ now });
  const b = new Bot({ store, service: service(store), now, ...options });
  b.on("message:text", (ctx) => ctx.reply(ctx.text));
  return { name, handle: (payload) => b.handleUpdate(payload), close: () => b.close() };
}

async function block(variant: Variant): Promise<number> {
  const payloads = Array.from({ length: PER_BLOCK }, update);
  const started = performance.now();
  for (const payload of payloads) {
    clock += 2000;
    await variant.handle(payload);
  }
  return (performance.now() - started) / PER_BLOCK;
}

const baseline = bare(false);
const variants = [
  bare(true), // the part of the bot's cost that is its idempotent reply
  bot("bot (defaults: pacing on)", {}),
  bot("bot, pacing off", { pacing: false }),
];
// Warm-up: JIT and caches, not measured.
for (const variant of [baseline, ...variants]) await block(variant);

const times = new Map<string, number[]>([
  [baseline.name, []],
  ...variants.map((v) => [v.name, []] as [string, number[]]),
]);
const ratios = new Map<string, number[]>(variants.map((v) => [v.name, []]));
for (let b = 0; b < BLOCKS; b++) {
  const order = b % 2 === 0 ? [baseline, ...variants] : [...variants].reverse().concat(baseline);
  const perUpdate = new Map<string, number>();
  for (const variant of order) perUpdate.set(variant.name, await block(variant));
  for (const [name, ms] of perUpdate) times.get(name)!.push(ms);
  for (const variant of variants) {
    ratios.get(variant.name)!.push(perUpdate.get(variant.name)! / perUpdate.get(baseline.name)!);
  }
}

const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
console.log(
  `${BLOCKS} blocks × ${PER_BLOCK} updates per variant (median per update; ratio: median of per-block ratios)`,
);
console.log(`${baseline.name}: ${us(median(times.get(baseline.name)!))}  (1)`);
for (const variant of variants) {
  console.log(
    `${variant.name}: ${us(median(times.get(variant.name)!))}  (${
      median(ratios.get(variant.name)!).toFixed(3)
    }×)`,
  );
}
await stub?.stop();
// The client's shared per-attempt timeout timer would keep the process alive for up to its timeout.
Deno.exit(0);
