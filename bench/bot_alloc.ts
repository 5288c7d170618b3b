/**
 * What the bot allocates per update beside the keyed handler (bench/bot_cost.ts's two variants, the gateway
 * stubbed in process): the garbage the collector pays for, a figure the machine's load moves little.
 *
 * Each variant runs alone in a child process under V8's `--trace-gc-nvp`, for two update counts; the bytes
 * allocated are summed over the collections (each one's start size less the previous one's end size, a last
 * full collection at the end so nothing allocated is left out), and the figure is the difference of the two
 * totals over the difference of the counts, so start-up and warm-up cancel out. The median over `--runs`
 * pairs is printed.
 *
 *   deno run -A --lock=tests/npm/deno.lock bench/bot_alloc.ts [--runs 3] [--from 4000] [--to 12000]
 */

import { GatewayService } from "../src/service.ts";
import { MemoryStore } from "../src/backends/memory/store.ts";
import { WebhookPayloadDto } from "../src/webhooks/payload.ts";
import { WebhookProcessor } from "../src/webhooks/processor.ts";
import { Bot } from "../src/bot/mod.ts";
import { median } from "./stats.ts";

function arg(name: string, fallback: number): number {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
}

/** One variant for `count` updates, in this process (the child's part). */
async function child(variant: string, count: number): Promise<void> {
  let clock = Date.now();
  const now = () => clock;
  let sent = 0;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const body = await new Request(input, init).json() as { number: string; text: string };
    const key = { remoteJid: body.number, fromMe: true, id: `3EB0${++sent}` };
    return Response.json({ key, status: "PENDING", message: { conversation: body.text } }, { status: 201 });
  };
  const store = new MemoryStore({ now });
  const config = { server_url: "http://gateway.bench", api_key: "k", instance: "bench", store };
  const service = new GatewayService({ ...config, rate_limiting: { enabled: false } }, { fetch });
  let handle: (payload: WebhookPayloadDto) => Promise<void>;
  if (variant === "bot") {
    const bot = new Bot({ store, service, now });
    bot.on("message:text", (ctx) => ctx.reply(ctx.text));
    handle = (payload) => bot.handleUpdate(payload);
  } else {
    const api = service.instance("bench");
    const processor = new WebhookProcessor({ store });
    processor.on("messages.upsert", async (payload) => {
      if (payload.fromMe || payload.chatJid === undefined || payload.text === undefined) return;
      await api.messages().text(payload.chatJid, payload.text, {}, {
        idempotencyKey: `bare:${payload.messageId}:0`,
      });
    });
    handle = (payload) => processor.process(payload);
  }
  for (let n = 1; n <= count; n++) {
    clock += 2000; // no reply waits for its chat's gap
    const chat = `55119${String(n % 64).padStart(8, "0")}@s.whatsapp.net`;
    const key = {
      remoteJid: chat,
      fromMe: false,
      id: `BENCH${n.toString(16).toUpperCase().padStart(12, "0")}`,
    };
    const message = { conversation: `message ${n}` };
    const data = {
      key,
      pushName: "Load",
      message,
      messageType: "conversation",
      messageTimestamp: 1_760_000_000,
    };
    await handle(WebhookPayloadDto.from({ event: "messages.upsert", instance: "bench", data })!);
  }
}

/** Bytes allocated by a child running `variant` for `count` updates. */
async function allocated(variant: string, count: number): Promise<number> {
  const self = new URL(import.meta.url).pathname;
  const lock = new URL("../tests/npm/deno.lock", import.meta.url).pathname;
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--lock=${lock}`,
      "--v8-flags=--trace-gc-nvp,--expose-gc",
      self,
      "--child",
      variant,
      String(count),
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  let total = 0;
  let previousEnd = 0;
  const sizes = /"start_object_size":(\d+),"end_object_size":(\d+)/g;
  for (const [, start, end] of new TextDecoder().decode(stdout).matchAll(sizes)) {
    total += Number(start) - previousEnd;
    previousEnd = Number(end);
  }
  return total;
}

const at = Deno.args.indexOf("--child");
if (at >= 0) {
  await child(Deno.args[at + 1], Number(Deno.args[at + 2]));
  (globalThis as { gc?: () => void }).gc?.(); // the last allocations are counted too
  Deno.exit(0); // the client's shared timeout timer would keep the process alive
}

const RUNS = arg("runs", 3);
const FROM = arg("from", 4000);
const TO = arg("to", 12000);
const perUpdate: Record<string, number[]> = { keyed: [], bot: [] };
for (let run = 0; run < RUNS; run++) {
  for (const variant of ["keyed", "bot"]) {
    const bytes = (await allocated(variant, TO)) - (await allocated(variant, FROM));
    perUpdate[variant].push(bytes / (TO - FROM));
  }
}
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const keyed = median(perUpdate.keyed);
const bot = median(perUpdate.bot);
console.log(`allocated per update (median of ${RUNS} runs, ${FROM} and ${TO} updates):`);
console.log(`keyed handler: ${kb(keyed)}; bot (defaults): ${kb(bot)}; the bot's own: ${kb(bot - keyed)}`);
