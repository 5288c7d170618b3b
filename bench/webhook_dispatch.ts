// The processor's dispatch cost: `processor.process` of one messages.upsert with one synchronous handler, in
// interleaved rounds (order rotated per round), against the same handler called from a bare async function
// in the same round; the figure per variant is the median over rounds of its time divided by the baseline's.
// With BEFORE=<dir holding an older src/>, the same processors built from that code run in the same rounds
// (e.g. `git archive main src | tar -x -C /tmp/before`), and the ratio after/before is printed too.
// Run: [BEFORE=/tmp/before] [ROUNDS=41] deno run --no-prompt -A bench/webhook_dispatch.ts
import { WebhookPayloadDto } from "../src/webhooks/payload.ts";
import { WebhookProcessor } from "../src/webhooks/processor.ts";

type Processor = {
  process(payload: unknown): Promise<void>;
  on(kind: "messages.upsert", fn: Handler): Processor;
};
type Handler = (payload: { instance: string }) => void;
type Factory = { Dto: typeof WebhookPayloadDto; Processor: new (options: { log?: boolean }) => Processor };

const BODY = {
  event: "messages.upsert",
  instance: "sales",
  data: {
    key: { id: "3EB0", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
    message: { conversation: "hi" },
    messageType: "conversation",
  },
};
const N = 20_000;
const ROUNDS = Number(Deno.env.get("ROUNDS") ?? 41);

let seen = 0;
const handler: Handler = (payload) => {
  if (payload.instance === "sales") seen++;
};

function variants(label: string, code: Factory): Record<string, () => Promise<void>> {
  const payload = code.Dto.from(BODY)!;
  const quiet = new code.Processor({ log: false }).on("messages.upsert", handler);
  // The default processor: the log line is on, its level off (nothing is configured).
  const plain = new code.Processor({}).on("messages.upsert", handler);
  return {
    [`${label}on(), log: false`]: () => quiet.process(payload),
    [`${label}on(), default options`]: () => plain.process(payload),
  };
}

const current = { Dto: WebhookPayloadDto, Processor: WebhookProcessor } as unknown as Factory;
const payload = WebhookPayloadDto.from(BODY)!;
const runs: Record<string, () => Promise<void>> = {
  // The least a dispatcher does: call the handler, await it only when it returned a promise.
  "baseline: bare async call": async () => {
    const result: unknown = handler(payload);
    if (result instanceof Promise) await result;
  },
  ...variants("", current),
};
const before = Deno.env.get("BEFORE");
if (before !== undefined) {
  const dto = await import(`${before}/src/webhooks/payload.ts`);
  const processor = await import(`${before}/src/webhooks/processor.ts`);
  Object.assign(
    runs,
    variants("before: ", { Dto: dto.WebhookPayloadDto, Processor: processor.WebhookProcessor }),
  );
}

async function time(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < N; i++) await fn();
  return (performance.now() - start) / N * 1e6;
}

const names = Object.keys(runs);
const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
for (let round = -3; round < ROUNDS; round++) {
  const order = names.map((_, i) => names[(i + round + 3) % names.length]);
  for (const name of order) {
    const ns = await time(runs[name]);
    if (round >= 0) times[name].push(ns);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const ratio = (a: string, b: string) => median(times[a].map((t, i) => t / times[b][i]));
console.log(`${ROUNDS} rounds x ${N} calls (handler ran ${seen} times)`);
for (const name of names) {
  console.log(
    `${name.padEnd(34)} ${median(times[name]).toFixed(0).padStart(5)} ns  ` +
      `x baseline ${ratio(name, names[0]).toFixed(2)}` +
      (before !== undefined && !name.startsWith("b")
        ? `  after/before ${ratio(name, `before: ${name}`).toFixed(2)}`
        : ""),
  );
}
