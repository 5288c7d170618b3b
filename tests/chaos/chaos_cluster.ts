/**
 * The bot processes of one chaos run: spawns them (`deno run` of chaos_worker.ts), SIGKILLs and replaces
 * one, moves every process's clock at once, and tells the test when a handler holds its chat's turn.
 */

import { lines, NO_NODE_MODULES } from "../helpers/processes.ts";
import type { WorkerConfig } from "./chaos_worker.ts";

const ROOT = new URL("../../", import.meta.url);
const WORKER = new URL("./chaos_worker.ts", import.meta.url);

class WorkerProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #acks = new Map<number, () => void>();
  readonly #reading: Promise<void>;
  readonly stderr: Promise<string>;
  readonly ready: Promise<number>;

  constructor(
    readonly name: string,
    config: WorkerConfig,
    onHolding: (id: string) => void,
    onArrived: (id: string) => void,
  ) {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--lock=tests/npm/deno.lock",
        NO_NODE_MODULES,
        "-A",
        WORKER.pathname,
        JSON.stringify(config),
      ],
      cwd: ROOT.pathname,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = this.#child.stdin.getWriter();
    this.stderr = new Response(this.#child.stderr).text();
    let ready!: (port: number) => void;
    this.ready = new Promise((resolve) => ready = resolve);
    this.#reading = (async () => {
      for await (const line of lines(child.stdout)) {
        const [word, arg] = line.split(" ");
        if (word === "ready") ready(Number(arg));
        else if (word === "holding") onHolding(arg);
        else if (word === "arrived") onArrived(arg);
        else if (word === "ack") this.#acks.get(Number(arg))?.();
      }
    })();
  }

  async send(line: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${line}\n`)).catch(() => {});
  }

  ack(n: number): Promise<void> {
    return new Promise((resolve) => this.#acks.set(n, resolve));
  }

  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.#finish();
  }

  /** End its input (it stops), or kill it after `ms`. */
  async stop(ms = 10_000): Promise<string> {
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), ms);
    try {
      await this.#finish();
    } finally {
      clearTimeout(timer);
    }
    return await this.stderr;
  }

  async #finish(): Promise<void> {
    await this.#writer.abort().catch(() => {});
    await this.#child.status;
    await this.#reading.catch(() => {});
    await this.stderr;
  }
}

/** What every worker of a cluster shares. */
export type ClusterConfig = Omit<WorkerConfig, "name" | "offset">;

export class Cluster {
  /** Ms the shared clock is ahead of real time. */
  offset = 0;
  /** Called when a handler prints `holding <id>`, with the worker's slot. */
  onHolding: (slot: number, id: string) => void = () => {};
  readonly #workers: WorkerProcess[] = [];
  readonly #ports: number[] = [];
  readonly #down = new Set<number>();
  readonly #upWaiters: (() => void)[] = [];
  readonly #arrivals = new Map<string, PromiseWithResolvers<void>>();
  #spawned = 0;
  #acks = 0;

  private constructor(readonly config: ClusterConfig) {}

  static async start(config: ClusterConfig, size: number): Promise<Cluster> {
    const cluster = new Cluster(config);
    await Promise.all(Array.from({ length: size }, (_, slot) => cluster.#spawn(slot)));
    return cluster;
  }

  get size(): number {
    return this.#workers.length;
  }

  now(): number {
    return Date.now() + this.offset;
  }

  url(slot: number): string {
    return `http://127.0.0.1:${this.#ports[slot]}/gateway/webhook/sales`;
  }

  name(slot: number): string {
    return this.#workers[slot].name;
  }

  async #spawn(slot: number): Promise<void> {
    const name = `P${slot}.${this.#spawned++}`;
    const offset = this.offset;
    const worker = new WorkerProcess(
      name,
      { ...this.config, name, offset },
      (id) => this.onHolding(slot, id),
      (id) => this.#arrival(id).resolve(),
    );
    this.#workers[slot] = worker;
    const port = await Promise.race([
      worker.ready,
      worker.stderr.then((text) => Promise.reject(new Error(`${name} did not start: ${text}`))),
    ]);
    if (this.offset !== offset) {
      // A jump made while it started (another holder's kill) did not reach it: give it the clock first.
      const n = ++this.#acks;
      const acked = worker.ack(n);
      await worker.send(`clock ${this.offset} ${n}`);
      await acked;
    }
    this.#ports[slot] = port;
  }

  /** The slots whose worker is up (a killed one is down until `respawn`). */
  live(): number[] {
    return this.#workers.map((_, slot) => slot).filter((slot) => !this.#down.has(slot));
  }

  /** SIGKILL the worker in `slot` (noted in the log); it stays down until `respawn(slot)`. */
  async kill(slot: number): Promise<void> {
    const worker = this.#workers[slot];
    this.#down.add(slot);
    await worker.kill();
    Deno.writeTextFileSync(
      this.config.log,
      JSON.stringify({ e: "killed", p: worker.name, t: Date.now() }) + "\n",
      {
        append: true,
      },
    );
  }

  /** Start a new worker in the slot of a killed one. */
  async respawn(slot: number): Promise<void> {
    await this.#spawn(slot);
    this.#down.delete(slot);
    if (this.#down.size === 0) { for (const wake of this.#upWaiters.splice(0)) wake(); }
  }

  /** Resolves once no worker is down (a killed one was started again). */
  allUp(): Promise<void> {
    if (this.#down.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#upWaiters.push(resolve));
  }

  /**
   * Move every process's clock `ms` forward, and return once each has taken it. The test's own clock (which
   * signs the webhooks) moves last, so that no process sees a webhook signed after its own time.
   */
  async jump(ms: number): Promise<void> {
    const offset = this.offset + ms;
    const n = ++this.#acks;
    await Promise.all(
      this.live().map((slot) => this.#workers[slot]).map((worker) => {
        const acked = worker.ack(n);
        return worker.send(`clock ${offset} ${n}`).then(() => acked);
      }),
    );
    this.offset = offset;
  }

  /** Resolves once a webhook of message `id` has reached any process (from the call on). */
  arrived(id: string): Promise<void> {
    return this.#arrival(id).promise;
  }

  #arrival(id: string): PromiseWithResolvers<void> {
    const known = this.#arrivals.get(id) ?? Promise.withResolvers<void>();
    this.#arrivals.set(id, known);
    return known;
  }

  async release(slot: number, id: string): Promise<void> {
    await this.#workers[slot].send(`release ${id}`);
  }

  /** Stop every worker; returns the stderr of those that wrote any (a crash shows there). */
  async close(ms = 10_000): Promise<string[]> {
    const errors = await Promise.all(this.live().map((slot) => this.#workers[slot].stop(ms)));
    return errors.filter((text) => text.trim() !== "");
  }
}
