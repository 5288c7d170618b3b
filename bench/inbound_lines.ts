// The arrival lines' cost: `processor.process` of one messages.upsert with one synchronous handler, on a
// processor with `lines` (a synchronous read, one line per chat), against the same processor without lines,
// in interleaved rounds (order rotated per round); the figure per variant is the median over rounds of its
// time divided by the processor's without lines. With BEFORE=<dir holding an older src/>, the same variants
// built from that code run in the same rounds, and the ratio after/before is printed too.
// Run: [BEFORE=/tmp/before] [ROUNDS=31] deno run --no-prompt -A bench/inbound_lines.ts
import { WebhookPayloadDto } from "../src/webhooks/payload.ts";
import { WebhookProcessor } from "../src/webhooks/processor.ts";

type Placed = { release(): void };
type Processor = { process(payload: unknown): Promise<void>; on(kind: string, fn: () => void): Processor };
type Factory = { Dto: typeof WebhookPayloadDto; Processor: new (options: object) => Processor };

const BODY = {
  event: "messages.upsert",
  instance: "sales",
  data: { key: { id: "3EB0", remoteJid: "5511999999999@s.whatsapp.net" }, message: { conversation: "hi" } },
};
const N = 20_000;
const ROUNDS = Number(Deno.env.get("ROUNDS") ?? 31);
let seen = 0;
const lines = {
  read: (payload: WebhookPayloadDto) => ({ value: payload.text, line: payload.chatJid }),
  arrive: (): Placed => ({ release: () => void seen++ }),
};

function variants(label: string, code: Factory): Record<string, () => Promise<void>> {
  const payload = code.Dto.from(BODY)!;
  const plain = new code.Processor({ log: false }).on("messages.upsert", () => void seen++);
  const lined = new code.Processor({ log: false, lines }).on("messages.upsert", () => void seen++);
  return {
    [`${label}no lines`]: () => plain.process(payload),
    [`${label}lines`]: () => lined.process(payload),
  };
}

const runs = variants("", { Dto: WebhookPayloadDto, Processor: WebhookProcessor } as unknown as Factory);
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
  for (const name of names.map((_, i) => names[(i + round + 3) % names.length])) {
    const ns = await time(runs[name]);
    if (round >= 0) times[name].push(ns);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const ratio = (a: string, b: string) => median(times[a].map((t, i) => t / times[b][i]));
console.log(`${ROUNDS} rounds x ${N} calls (${seen} handler calls and releases)`);
for (const name of names) {
  const base = name.startsWith("before: ") ? "before: no lines" : "no lines";
  const after = before !== undefined && !name.startsWith("before: ");
  console.log(
    `${name.padEnd(20)} ${median(times[name]).toFixed(0).padStart(6)} ns  x no lines ${
      ratio(name, base).toFixed(2)
    }` +
      (after ? `  after/before ${ratio(name, `before: ${name}`).toFixed(2)}` : ""),
  );
}
