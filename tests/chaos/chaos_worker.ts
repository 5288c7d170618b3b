/**
 * One bot process of the chaos suite (tests/chaos/chaos_test.ts), written with the library's public API: a
 * `Bot` on a shared store (a Deno KV file, a Redis server, or memory for one process), served over HTTP with
 * real signature checks, replying through the mock gateway server. Every step a test checks goes to one
 * log file, each record one line appended with O_APPEND (so the file is one order for all processes):
 * `arr` when a webhook reaches the process (before the bot sees it), `ans` when it is answered, `start` when
 * the handler begins, `end`
 * once the update is done (the session saved), with the chat's session counter, `error` when it failed.
 *
 * The message text is `<chat> <seq> [flags]`; a flag acts on the first run of that message only (the number
 * of `start` records of its id in the log tells the run): `kill` prints `holding <id>` and hangs (the test
 * SIGKILLs the process), `hold` prints `holding <id>` and waits for `release <id>` on stdin, `fail` throws
 * after the reply, `killr` replies, then hangs like `kill`. `vary` makes the reply's text differ per run
 * (as an LLM's answer would).
 *
 * stdout: `ready <port>`, `arrived <id>`, `holding <id>`, `ack <n>`.
 * stdin: `clock <offset> <n>` (answered `ack <n>`), `release <id>`; end of input stops the process.
 *
 *   deno run -A tests/chaos/chaos_worker.ts '<json WorkerConfig>'
 */

import { GatewayService, type GatewayStore, KvStore, MemoryStore } from "../../mod.ts";
import { Bot, type Context, session, type SessionFlavor } from "../../src/bot/mod.ts";
import { RedisStore } from "../../src/backends/redis/mod.ts";
import { openKvWhenFree } from "../../src/backends/kv/busy.ts";
import { ChaosClock } from "./chaos_clock.ts";
import { configure, getConsoleSink } from "@logtape/logtape";

/** What the test gives a worker (one JSON argument). */
export interface WorkerConfig {
  name: string;
  engine: "kv" | "redis" | "memory";
  /** The KV file or the Redis URL. */
  where: string;
  mockUrl: string;
  apiKey: string;
  secret: string;
  log: string;
  offset: number;
}

/** The update claims' lease in a chaos process, real ms (the default is 120 s). */
const CLAIM_LEASE_MS = 1_200;

type ChaosContext = Context & SessionFlavor<{ count: number }>;

async function openStore(config: WorkerConfig, now: () => number) {
  if (config.engine === "memory") return { store: new MemoryStore({ now }), close: async () => {} };
  if (config.engine === "redis") {
    const store = new RedisStore({ url: config.where, now });
    return { store, close: () => store.close() };
  }
  const kv = await openKvWhenFree(config.where);
  return { store: new KvStore(kv, { now }), close: () => Promise.resolve(kv.close()) };
}

function buildBot(config: WorkerConfig, store: GatewayStore, clock: ChaosClock, released: Released) {
  const { now, sleep } = clock;
  const service = new GatewayService({
    server_url: config.mockUrl,
    api_key: config.apiKey,
    instance: "sales",
    store,
    rate_limiting: { enabled: false },
  }, { now, sleep });
  const bot = new Bot<ChaosContext>({
    store,
    service,
    signature: { secret: config.secret },
    pacing: false,
    now,
    sleep,
    // The claims' staleness is real time (a clock jump moves the wall clock only, as NTP does), so a killed
    // holder's claim is taken over within the server's retries: a lease short enough for them.
    claims: { leaseMs: CLAIM_LEASE_MS },
  });
  const write = (record: Record<string, unknown>) =>
    Deno.writeTextFileSync(config.log, JSON.stringify({ ...record, p: config.name, t: Date.now() }) + "\n", {
      append: true,
    });
  const counts = new WeakMap<object, number>();
  bot.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      write({ e: "error", id: ctx.msg?.id, chat: ctx.text?.split(" ")[0], message: message.slice(0, 200) });
      throw error;
    }
    const count = counts.get(ctx);
    if (count !== undefined) write({ e: "end", id: ctx.msg?.id, chat: ctx.text?.split(" ")[0], n: count });
  });
  bot.use(session({ initial: () => ({ count: 0 }) }));
  bot.on("message:text", async (ctx) => {
    const [chat, seq, ...flags] = ctx.text.split(" ");
    const id = ctx.msg.id;
    write({ e: "start", id, chat });
    const run = runsOf(config.log, id);
    if (run === 1 && (flags.includes("kill") || flags.includes("hold"))) {
      console.log(`holding ${id}`);
      await (flags.includes("hold") ? released.wait(id) : new Promise(() => {}));
    }
    const count = ++ctx.session.count;
    const text = flags.includes("vary")
      ? `re ${chat} ${seq} run ${run} by ${config.name}`
      : `re ${chat} ${seq}`;
    await ctx.reply(text);
    if (run === 1 && flags.includes("killr")) {
      console.log(`holding ${id}`);
      await new Promise(() => {});
    }
    if (run === 1 && flags.includes("fail")) throw new Error(`chaos: ${id} fails after its reply`);
    counts.set(ctx, count);
  });
  return { bot, write };
}

/** How many handler runs of `id` the log holds (this one included). */
function runsOf(log: string, id: string): number {
  return Deno.readTextFileSync(log).split("\n").filter((line) => line.includes(`"e":"start","id":"${id}"`))
    .length;
}

class Released {
  readonly #waiting = new Map<string, () => void>();
  readonly #early = new Set<string>();
  wait(id: string): Promise<void> {
    if (this.#early.delete(id)) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.set(id, resolve));
  }
  release(id: string): void {
    const wake = this.#waiting.get(id);
    this.#waiting.delete(id);
    if (wake) wake();
    else this.#early.add(id);
  }
}

async function main(config: WorkerConfig): Promise<void> {
  // The library's warnings and errors go to stderr, which the test reports.
  await configure({
    sinks: { console: getConsoleSink() },
    loggers: [
      { category: ["gateway"], lowestLevel: "warning", sinks: ["console"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["console"] },
    ],
  });
  const clock = new ChaosClock(config.offset);
  const { store, close } = await openStore(config, clock.now);
  const released = new Released();
  const { bot, write } = buildBot(config, store, clock, released);
  // A warm process: its store connection is open before the first webhook (a Redis client connects on first
  // use), as a process that has been serving is; a cold start would delay its first arrival's ticket.
  await store.state.get("chaos", "warm");
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const d = Number(request.headers.get("x-chaos-delivery"));
    const id = request.headers.get("x-chaos-id");
    write({ e: "arr", id, d });
    console.log(`arrived ${id}`);
    const response = await bot.fetch(request);
    write({ e: "ans", id, d, s: response.status }); // the run a start belongs to is open until its answer
    return response;
  });
  console.log(`ready ${server.addr.port}`);
  let buffered = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const [command, arg, n] = buffered.slice(0, newline).split(" ");
      buffered = buffered.slice(newline + 1);
      if (command === "clock") {
        clock.jump(Number(arg));
        console.log(`ack ${n}`);
      } else if (command === "release") released.release(arg);
    }
  }
  await server.shutdown();
  await bot.close(); // the places given up after their answers reach the store before it closes
  await close();
  Deno.exit(0); // a hung `kill` handler must not keep the process alive
}

if (import.meta.main) await main(JSON.parse(Deno.args[0]) as WorkerConfig);
