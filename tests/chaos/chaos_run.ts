/**
 * One chaos run: a mock gateway server, a store shared by `processes` bot processes (a KV file, a throwaway
 * redis-server, or memory for one process), the planned deliveries with the server's retries, a SIGKILL and
 * a clock jump past every lease whenever a handler flagged `kill` holds its chat's turn (those deliveries go
 * after the others, one chat at a time: see splitAtKills), then a pass that redelivers some messages once all is done; then
 * every check over the shared log.
 */

import { MockGatewayServer } from "../../src/testing/mod.ts";
import { generateWebhookSecret } from "../../src/testing/mod.ts";
import { startRedisServer } from "../helpers/redis_server.ts";
import { Cluster } from "./chaos_cluster.ts";
import { type ChaosMessage, Deliveries, type Delivery, seeded } from "./chaos_deliveries.ts";
import {
  checkAccepted,
  checkErrors,
  checkOnce,
  checkOrder,
  checkOverlap,
  checkReplies,
  checkSessions,
  readLog,
} from "./chaos_checks.ts";

/**
 * Past the chat turn's lease (60 s) and the inbound claim's (120 s); under the life of the server's JWT (10
 * min), so that a webhook signed just before the jump still verifies after it.
 */
export const PAST_EVERY_LEASE_MS = 5 * 60_000;

const API_KEY = "chaos-key";
const RUN_DEADLINE_MS = 20_000;

export interface RunSpec {
  engine: "kv" | "redis" | "memory";
  processes: number;
  seed: number;
  messages: ChaosMessage[];
  plan: Delivery[];
  /** Deliveries answered before the plan starts (what the processes must have learned first). */
  prelude?: Delivery[];
  /** Share of the messages redelivered once everything is done. */
  redeliverAfter: number;
  /** Cross-process order resolution, ms (see checkOrder). */
  resolutionMs: number;
  /** What to do when a handler of `message` holds its chat's turn in `slot` (default: `killHolder`). */
  onHold?: (run: RunContext, slot: number, message: ChaosMessage) => Promise<void>;
}

export interface RunContext {
  cluster: Cluster;
  deliveries: Deliveries;
  messages: ChaosMessage[];
  /** Work a hold handler started (deliveries of its own): the run waits for it before its last pass. */
  pending: Promise<unknown>[];
}

export interface RunResult {
  violations: Record<string, string[]>;
  widestMs: number;
}

/** Kill the holder, jump every clock past every lease, bring the process back (the server retries the rest). */
export async function killHolder(run: RunContext, slot: number, message: ChaosMessage): Promise<void> {
  if (!message.flags.some((flag) => flag === "kill" || flag === "killr")) return;
  await run.cluster.kill(slot);
  await run.cluster.jump(PAST_EVERY_LEASE_MS);
  await run.cluster.respawn(slot);
}

async function openEngine(spec: RunSpec, dir: string) {
  if (spec.engine !== "redis") return { where: `${dir}/bot.kv`, close: async () => {} };
  const server = await startRedisServer();
  return { where: server.url, close: () => server.close() };
}

export async function chaosRun(spec: RunSpec): Promise<RunResult> {
  await using mock = await MockGatewayServer.start({ apiKey: API_KEY, port: 0 });
  mock.addInstance("sales", { open: true });
  const dir = await Deno.makeTempDir({ prefix: "gw_chaos_" });
  const engine = await openEngine(spec, dir);
  const log = `${dir}/chaos.log`;
  Deno.writeTextFileSync(log, "");
  const secret = generateWebhookSecret();
  const random = seeded(spec.seed);
  let cluster: Cluster | undefined;
  try {
    cluster = await Cluster.start(
      { engine: spec.engine, where: engine.where, mockUrl: mock.url, apiKey: API_KEY, secret, log },
      spec.processes,
    );
    // The server retries a failed delivery for about 20 minutes; here 16 attempts (about 9 s). A killed holder's
    // claim is taken over by a process that saw it unchanged for the lease (1.2 s here), and a respawned process
    // has seen nothing yet: with 10 attempts (about 5 s) a message could run out of retries first when its
    // redeliveries kept landing on processes that had just started (seed 3008 on Redis, 1 run in 40).
    const deliveries = new Deliveries(cluster, secret, { random, attempts: 16, retryMs: 50 });
    const run: RunContext = { cluster, deliveries, messages: spec.messages, pending: [] };
    const holds = run.pending;
    const byId = new Map(spec.messages.map((m) => [m.id, m]));
    cluster.onHolding = (slot, id) => holds.push((spec.onHold ?? killHolder)(run, slot, byId.get(id)!));
    const again = spec.messages.filter(() => random() < spec.redeliverAfter);
    const workers = cluster;
    const phases = (async () => {
      await deliveries.run(spec.prelude ?? []);
      for (const phase of splitAtKills(spec.plan)) {
        await deliveries.run(phase);
        await settled(holds);
      }
      await settled(holds);
      await Promise.all(again.map((m, i) => deliveries.deliver(m, i % workers.size)));
    })();
    const stuck = await deadline(phases, RUN_DEADLINE_MS);
    deliveries.stop();
    const errors = await cluster.close(stuck ? 1_000 : 10_000);
    cluster = undefined;
    // Its last retries fail fast once the processes are gone; a hold handler waiting for an arrival that
    // never came stays pending (it holds no timer or connection).
    await deadline(phases, 5_000);
    const records = readLog(log);
    const order = checkOrder(records, spec.resolutionMs);
    const violations: Record<string, string[]> = {
      stuck: stuck ? [`the run did not end in ${RUN_DEADLINE_MS} ms`] : [],
      stderr: capped(errors.flatMap((text) => text.split("\n")).filter(unexpected)),
      accepted: checkAccepted(deliveries.outcomes),
      errors: checkErrors(records),
      overlap: checkOverlap(records),
      once: checkOnce(records, spec.messages),
      replies: checkReplies(mock.sentMessages, spec.messages),
      sessions: checkSessions(records, spec.messages),
      order: order.found,
    };
    for (const [name, found] of Object.entries(violations)) if (found.length === 0) delete violations[name];
    const keep = Deno.env.get("CHAOS_LOG_DIR");
    if (keep && Object.keys(violations).length > 0) {
      Deno.copyFileSync(log, `${keep}/chaos-${spec.engine}-${spec.seed}-${Date.now()}.log`);
    }
    return { violations, widestMs: order.widestMs };
  } finally {
    await cluster?.close();
    await engine.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The deliveries of a kill target and of the later messages of its chat go last, one chat after the other,
 * each once every earlier delivery was answered: when the clock then jumps past every lease, the only work
 * left is the dead holder's chat (its line, and the redeliveries of what the dead process held), not another
 * chat's send in flight, whose live claim and deadline the jump would also pass.
 */
function splitAtKills(plan: Delivery[]): Delivery[][] {
  const first = new Map<string, number>(); // chat -> seq of its first kill target
  for (const { message } of plan) {
    if (!message.flags.some((flag) => flag === "kill" || flag === "killr")) continue;
    first.set(message.chat, Math.min(first.get(message.chat) ?? Infinity, message.seq));
  }
  const late = (d: Delivery) => d.message.seq >= (first.get(d.message.chat) ?? Infinity);
  const attacks = [...first.keys()].map((chat) => {
    const attack = plan.filter((d) => d.message.chat === chat && late(d));
    const start = Math.min(...attack.map((d) => d.at));
    return attack.map((d) => ({ ...d, at: d.at - start }));
  });
  return [plan.filter((d) => !late(d)), ...attacks];
}

/** Wait for every promise of `list`, also those added while waiting. */
async function settled(list: Promise<unknown>[]): Promise<void> {
  for (let done = 0; done < list.length;) {
    const now = list.length;
    await Promise.all(list.slice(done, now));
    done = now;
  }
}

/** Log lines of what the runs are expected to meet: a redelivery while its message runs, a flagged failure. */
const EXPECTED = [/another delivery is processing it/, /chaos: \S+ fails after its reply/];

function unexpected(line: string): boolean {
  return line.trim() !== "" && !EXPECTED.some((pattern) => pattern.test(line));
}

function capped(lines: string[]): string[] {
  return lines.length <= 5 ? lines : [...lines.slice(0, 5), `... and ${lines.length - 5} more`];
}

/** True when `work` did not settle within `ms` (the run's own bound, so a wedged run fails instead of hanging). */
async function deadline(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(true), ms));
  try {
    return await Promise.race([work.then(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
