// Webhook load benchmark: requests/s of createWebhookHandler (hmac, ~2 KB messages.upsert, no-op handler)
// under Deno.serve, against (a) a bare Deno.serve that reads the body and answers 200 and (b) a minimal
// hand-written handler (cached WebCrypto key check + JSON.parse), and (b) plus the header and URL reads our
// refusals need (minimal_checks); the same for dedupe on and queue mode, each against a minimal handler
// doing the same extra work. Each round starts every variant in a fresh
// process and interleaves one-second wrk slices between them (1 thread, 32 connections, 127.0.0.1).
//
// Run: bash bench/webhook_load.sh            (installs wrk with apt-get when missing)
//  or: deno run -A bench/webhook.ts [--rounds 5] [--seconds 3] [--warmup 3] [--only ours,minimal]
//      (--seconds: one-second slices per variant and round)
//      [--reference ../other-checkout]: adds the variant "reference", the receiver of another checkout of
//      this repository (e.g. `git worktree add --detach ../ref <commit>`), measured in the same rounds as ours
//      --only minimal,steps_1,steps_2,steps_3,steps_4,ours: the minimal handler with ours' work added one
//      step at a time (see stepsHandler in webhook_server.ts), to see where ours' cost under load lies
import { median } from "./stats.ts";
import { BODY, PATH, SECRET } from "./webhook_body.ts";
import { signWebhook } from "../src/webhooks/signature.ts";

function flag(name: string, fallback: string): string {
  const index = Deno.args.indexOf(`--${name}`);
  return index >= 0 ? Deno.args[index + 1] : fallback;
}
const rounds = Number(flag("rounds", "5"));
const seconds = Number(flag("seconds", "3"));
const warmup = Number(flag("warmup", "3"));
const all = [
  "bare",
  "minimal",
  "minimal_checks",
  "ours",
  "ours_no_metrics",
  "minimal_dedupe",
  "ours_dedupe",
  "minimal_queue",
  "ours_queue",
];
const reference = flag("reference", "");
if (reference !== "") all.push("reference");
const variants = flag("only", all.join(",")).split(",");
if (reference !== "" && !variants.includes("reference")) variants.push("reference");
const hasTaskset = await new Deno.Command("sh", { args: ["-c", "command -v taskset"], stdout: "null" })
  .output()
  .then((r) => r.success, () => false);
const pin = flag("pin", hasTaskset && navigator.hardwareConcurrency >= 2 ? "yes" : "no") === "yes";

const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: false });
const dir = await Deno.makeTempDir({ prefix: "gw_webhook_bench_" });
const lua = `${dir}/post.lua`;
await Deno.writeTextFile(
  lua,
  `wrk.method = "POST"\nwrk.body = ${JSON.stringify(BODY)}\n` +
    Object.entries(headers).map(([name, value]) =>
      `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`
    )
      .join("\n") +
    "\n",
);

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function wrk(
  port: number,
  duration: number,
): Promise<{ requests: number; seconds: number; statuses: string }> {
  const args = ["-t1", "-c32", `-d${duration}s`, "-s", lua, `http://127.0.0.1:${port}${PATH}`];
  const { stdout } = await new Deno.Command(pin ? "taskset" : "wrk", {
    args: pin ? ["-c", "1", "wrk", ...args] : args,
    stdout: "piped",
    stderr: "null",
  }).output();
  const text = new TextDecoder().decode(stdout);
  // "12345 requests in 1.00s, ..." (wrk prints ms for short runs)
  const match = /(\d+) requests in ([\d.]+)(ms|s|m)\b/.exec(text);
  const unit = match?.[3] === "ms" ? 1e-3 : match?.[3] === "m" ? 60 : 1;
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1];
  return {
    requests: Number(match?.[1] ?? NaN),
    seconds: Number(match?.[2] ?? NaN) * unit,
    statuses: bad === undefined ? "all 2xx" : `${bad} non-2xx`,
  };
}

// CPU time (user + system, all threads) of a process so far, in seconds; Linux only, else NaN.
async function cpuSeconds(pid: number): Promise<number> {
  try {
    const fields = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

const cpuPerRequest: Record<string, number[]> = {};

interface Server {
  variant: string;
  port: number;
  child: Deno.ChildProcess;
  reader: ReadableStreamDefaultReader<string>;
}

async function start(variant: string): Promise<Server> {
  const port = freePort();
  const kvDir = await Deno.makeTempDir({ dir, prefix: `${variant}_` });
  const serverArgs = [
    "run",
    "-A",
    "--unstable-kv",
    new URL("./webhook_server.ts", import.meta.url).pathname,
    variant,
    String(port),
    kvDir,
    ...(variant === "reference" ? [reference] : []),
  ];
  // With --pin (default when taskset exists and there are 2+ CPUs) the servers run on CPU 0 and wrk on
  // CPU 1, so that the two do not steal each other's time slices unevenly between variants.
  const child = new Deno.Command(pin ? "taskset" : Deno.execPath(), {
    args: pin ? ["-c", "0", Deno.execPath(), ...serverArgs] : serverArgs,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("ready")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${variant} did not start`);
    out += value;
  }
  return { variant, port, child, reader };
}

async function stop(server: Server): Promise<void> {
  server.child.kill("SIGTERM");
  await server.child.status;
  await server.reader.cancel();
}

// A fresh process per variant (so that no process's JIT outcome is counted twice), each warmed up, then
// one-second slices taken in turn, `seconds` per variant. Slices interleaved this finely put every
// variant through the same drifts of the machine, which longer back-to-back runs did not.
async function measureGroup(order: readonly string[]): Promise<Record<string, number>> {
  const servers: Server[] = [];
  try {
    for (const variant of order) servers.push(await start(variant));
    for (const server of servers) await wrk(server.port, warmup);
    const requests: Record<string, number> = {};
    const elapsed: Record<string, number> = {};
    const cpu: Record<string, number> = {};
    for (let slice = 0; slice < seconds; slice++) {
      for (const server of slice % 2 === 0 ? servers : [...servers].reverse()) {
        // With taskset the child is taskset's exec'd Deno: same pid.
        const before = await cpuSeconds(server.child.pid);
        const result = await wrk(server.port, 1);
        const after = await cpuSeconds(server.child.pid);
        if (result.statuses !== "all 2xx") throw new Error(`${server.variant}: ${result.statuses}`);
        requests[server.variant] = (requests[server.variant] ?? 0) + result.requests;
        elapsed[server.variant] = (elapsed[server.variant] ?? 0) + result.seconds;
        cpu[server.variant] = (cpu[server.variant] ?? 0) + after - before;
      }
    }
    const rates: Record<string, number> = {};
    for (const variant of order) {
      rates[variant] = requests[variant] / elapsed[variant];
      (cpuPerRequest[variant] ??= []).push((cpu[variant] / requests[variant]) * 1e6);
    }
    return rates;
  } finally {
    for (const server of servers) await stop(server);
  }
}

// Queue variants keep working after they answer (their workers drain the backlog), which would take CPU
// from the other variants' slices: each of them runs alone, after the others.
const background = (variant: string) => variant.endsWith("_queue");

async function measureRound(order: readonly string[]): Promise<Record<string, number>> {
  const groups = [order.filter((v) => !background(v)), ...order.filter(background).map((v) => [v])];
  const rates: Record<string, number> = {};
  for (const group of groups) if (group.length > 0) Object.assign(rates, await measureGroup(group));
  return rates;
}

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed * 2654435761 >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1664525 + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const results: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v, []]));
for (let round = 0; round < rounds; round++) {
  // A fresh seeded shuffle each round: no variant always runs first, last, or right after the same one.
  const rates = await measureRound(shuffle(variants, round + 1));
  for (const variant of variants) results[variant].push(rates[variant]);
  console.log(
    `round ${round + 1}: ` + variants.map((v) => `${v} ${Math.round(results[v][round])}`).join(", "),
  );
}
await Deno.remove(dir, { recursive: true });

const ratio = (a: string, b: string) =>
  results[a] && results[b] ? results[a].map((value, i) => value / results[b][i]) : undefined;
console.log("\nmedian requests/s:");
for (const variant of variants) {
  console.log(`  ${variant.padEnd(15)} ${Math.round(median(results[variant]))}`);
}
console.log("\nserver CPU per request (µs, all threads), median [min–max]:");
for (const variant of variants) {
  const values = [...(cpuPerRequest[variant] ?? [])].sort((a, b) => a - b);
  if (values.length === 0 || values.some(Number.isNaN)) continue;
  console.log(
    `  ${variant.padEnd(15)} ${median(values).toFixed(1)} [${values[0].toFixed(1)}–${
      values[values.length - 1].toFixed(1)
    }]`,
  );
}
console.log("\nratios per round (same round), median [min–max]:");
for (
  const [a, b] of [
    ["ours", "minimal"],
    ["steps_1", "minimal"],
    ["steps_2", "minimal"],
    ["steps_3", "minimal"],
    ["steps_4", "minimal"],
    ["ours_no_metrics", "minimal"],
    ["reference", "minimal"],
    ["ours", "reference"],
    ["minimal_checks", "minimal"],
    ["ours", "minimal_checks"],
    ["minimal", "bare"],
    ["ours", "bare"],
    ["ours_dedupe", "minimal_dedupe"],
    ["ours_dedupe", "minimal"],
    ["ours_queue", "minimal_queue"],
    ["ours_queue", "minimal"],
  ]
) {
  const values = ratio(a, b);
  if (values === undefined) continue;
  const sorted = [...values].sort((x, y) => x - y);
  console.log(
    `  ${a} / ${b}: ${median(values).toFixed(3)} [${sorted[0].toFixed(3)}–${
      sorted[sorted.length - 1].toFixed(3)
    }]`,
  );
}
