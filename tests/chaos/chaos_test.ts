/**
 * The chaos suite: bot processes on one Deno KV file and on one Redis, deliveries a few ms apart and
 * repeated, the server's retries, SIGKILLs of the process holding a chat's turn and clock jumps past every
 * lease; each run checks per-chat order, once-only handling, single replies and exact sessions (see
 * docs/testing.md "Chaos suite"). CI runs each case once with the fixed seed; for longer runs:
 *
 *   CHAOS_SEED=<n> CHAOS_RUNS=<runs> deno test --no-prompt --lock=tests/npm/deno.lock -A tests/chaos/
 *
 * Run i of a case uses seed CHAOS_SEED + i; a failure names its seed, so `CHAOS_SEED=<it> CHAOS_RUNS=1`
 * replays it.
 */

import { deepStrictEqual } from "node:assert/strict";
import { type ChaosMessage, type Delivery, seeded } from "./chaos_deliveries.ts";
import { planDeliveries, planMessages, type PlanOptions } from "./chaos_plans.ts";
import { chaosRun, killHolder, type RunContext, type RunSpec } from "./chaos_run.ts";

const SEED = Number(Deno.env.get("CHAOS_SEED") ?? "27");
const RUNS = Number(Deno.env.get("CHAOS_RUNS") ?? "1");
/** Two arrivals at different processes closer than this may run in either order (docs/guarantees.md). */
// The documented bound (docs/bot.md, "Per-chat order"): widest inversions measured 52-72 ms on a quiet
// machine, up to 414 ms with the 2 cores loaded, as CI's parallel suite loads them.
const RESOLUTION_MS = Number(Deno.env.get("CHAOS_RESOLUTION_MS") ?? "1000");
/** Runs the cases that check a limit the ledger states as not met yet (`known`). */
const ALL = Deno.env.get("CHAOS_ALL") === "1";

type Engine = RunSpec["engine"];
type Shape = Omit<PlanOptions, "random" | "tag" | "processes">;

interface Case {
  name: string;
  /** A limit docs/guarantees.md states as not met: the case runs only with CHAOS_ALL=1. */
  known?: string;
  /** The same, on one engine only. */
  knownOn?: Partial<Record<Engine, string>>;
  engines: Engine[];
  processes: number;
  shape: Shape;
  redeliverAfter: number;
  onHold?: RunSpec["onHold"];
}

/** Every run of the case, then one assertion: the violations of each failing seed (so a long run counts them all). */
async function runCase(c: Case, engine: Engine): Promise<void> {
  const failed: Record<string, Record<string, string[]>> = {};
  let widestMs = 0;
  for (let i = 0; i < RUNS; i++) {
    const seed = SEED + i;
    const random = seeded(seed * 7919);
    const options: PlanOptions = { ...c.shape, random, tag: `${seed}`, processes: c.processes };
    const messages = planMessages(options);
    // A message flagged `hold` is delivered by the case's onHold (see redeliverWhileHeld), not planned.
    const planned = planDeliveries(messages, options).filter((d) => !d.message.flags.includes("hold"));
    // With @lid forms, each chat's first message (which carries the pair) is handled before the others.
    const first = (d: Delivery) => c.shape.lidForms === true && d.message.seq === 0;
    const prelude = planned.filter(first).map((d) => ({ ...d, at: 0 }));
    const plan = planned.filter((d) => !first(d));
    const result = await chaosRun({
      engine,
      processes: c.processes,
      seed,
      messages,
      plan,
      prelude,
      redeliverAfter: c.redeliverAfter,
      resolutionMs: RESOLUTION_MS,
      onHold: c.onHold,
    });
    widestMs = Math.max(widestMs, result.widestMs);
    if (Object.keys(result.violations).length > 0) failed[`seed ${seed}`] = result.violations;
  }
  const runs = `${Object.keys(failed).length} of ${RUNS} runs failed`;
  const measured = `widest cross-process inversion ${widestMs} ms`;
  deepStrictEqual(failed, {}, `${c.name} on ${engine}: ${runs}; ${measured}`);
}

/**
 * "Exactly once past 120 s": the message flagged `hold` is delivered to another process once the message
 * flagged `kill` holds its chat's turn, so that it waits in line behind it; the holder is killed and every
 * clock jumps past every lease (the waiting message's claim was taken before the jump); when the waiting
 * message runs, the server redelivers it to every process. It must not run a second time.
 */
async function redeliverWhileHeld(run: RunContext, slot: number, message: ChaosMessage): Promise<void> {
  if (!message.flags.includes("hold")) {
    const waiter = run.messages.find((m) => m.chat === message.chat && m.flags.includes("hold"))!;
    const other = run.cluster.live().find((s) => s !== slot)!;
    run.pending.push(run.deliveries.deliver(waiter, other));
    await run.cluster.arrived(waiter.id); // it takes its claim and its place in line before the jump
    return killHolder(run, slot, message);
  }
  await run.cluster.allUp(); // the killed holder's process is back: the redeliveries reach every process
  const redelivered = run.cluster.live().map((other) => run.deliveries.deliver(message, other));
  // Let them reach the processes and be decided before the held run ends (a fixed bound when a wrong
  // implementation makes them wait for the held run).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise((resolve) => timer = setTimeout(resolve, 300));
  await Promise.race([Promise.all(redelivered), bound]);
  clearTimeout(timer);
  await run.cluster.release(slot, message.id);
  await Promise.all(redelivered);
}

const CASES: Case[] = [
  {
    name: "one chat, one process: exact arrival order, once, one reply each, exact session",
    engines: ["kv", "redis", "memory"],
    processes: 1,
    shape: { chats: 1, perChat: 30, gapMs: 4, repeat: 0.3 },
    redeliverAfter: 0.3,
  },
  {
    name: "one chat across three processes: never two at a time, order within the resolution",
    engines: ["kv", "redis"],
    processes: 3,
    shape: { chats: 1, perChat: 30, gapMs: 4, repeat: 0.3 },
    redeliverAfter: 0.3,
  },
  {
    name: "many chats across three processes, holders SIGKILLed mid-handler, clocks past every lease",
    engines: ["kv", "redis"],
    processes: 3,
    shape: { chats: 4, perChat: 8, gapMs: 4, repeat: 0.3, flags: { kill: 2 } },
    redeliverAfter: 0.3,
  },
  {
    name: "a chat's @lid and phone forms are one line",
    engines: ["memory", "kv"],
    processes: 1,
    shape: { chats: 1, perChat: 20, gapMs: 3, repeat: 0.2, lidForms: true },
    redeliverAfter: 0.2,
  },
  {
    name:
      "exactly once past 120 s: a redelivery of a message that waited through the leases does not run it again",
    engines: ["kv", "redis"],
    processes: 2,
    shape: { chats: 1, perChat: 3, gapMs: 4, repeat: 0, flagsAt: { 1: "kill", 2: "hold" } },
    redeliverAfter: 0.5,
    onHold: redeliverWhileHeld,
  },
  {
    name:
      "a retry whose reply differs: after a throw or a kill that came after the reply, the reply is not sent again and the chat goes on",
    engines: ["kv", "redis"],
    processes: 2,
    shape: { chats: 2, perChat: 6, gapMs: 4, repeat: 0.2, flags: { "fail vary": 2, "killr vary": 1 } },
    redeliverAfter: 0.3,
  },
];

for (const c of CASES) {
  for (const engine of c.engines) {
    Deno.test({
      name: `chaos (${engine}): ${c.name}`,
      ignore: (c.known !== undefined || c.knownOn?.[engine] !== undefined) && !ALL,
      fn: () => runCase(c, engine),
    });
  }
}
