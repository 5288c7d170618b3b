/**
 * What a dialogue stores per step: the re-ask loop of docs/bot.md (examples/bot/form.ts) answered with
 * `--steps` invalid ages through the BotHarness on a MemoryStore, then the bytes of the chat's dialogue in
 * the store (its record, and the chunks of its log when there are any), as JSON.
 *
 *   deno run -A --lock=tests/npm/deno.lock bench/conversation_bytes.ts [--steps 20]
 *
 * @module
 */

import { MemoryStore } from "../mod.ts";
import type { StateStore } from "../src/store/state.ts";
import { BotHarness } from "../src/testing/mod.ts";
import { createFormBot } from "../examples/bot/form.ts";

const KEY = "bot:5511999999999@s.whatsapp.net";
const stepsAt = Deno.args.indexOf("--steps");
const steps = stepsAt === -1 ? 20 : Number(Deno.args[stepsAt + 1]);

async function storedBytes(state: StateStore): Promise<{ total: number; record: number; chunks: number }> {
  const size = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
  const record = await state.get("conversation", KEY);
  const chunks = await state.list("conversation-log", { prefix: `${KEY}#` });
  const recordBytes = record === null ? 0 : size(record.value);
  const total = recordBytes + chunks.reduce((sum, chunk) => sum + size(chunk.value), 0);
  return { total, record: recordBytes, chunks: chunks.length };
}

const store = new MemoryStore();
await using h = new BotHarness(createFormBot({ store }));
const ana = h.user("5511999999999");
await ana.send("/form");
await ana.send("Ana");
const before = await storedBytes(store.state);
let failed = 0;
for (let i = 0; i < steps; i++) await ana.send("thirty").catch(() => failed++);
const after = await storedBytes(store.state);
console.log(JSON.stringify({
  steps,
  bytesPerStep: Math.round((after.total - before.total) / steps),
  atStart: before.total,
  total: after.total,
  record: after.record,
  chunks: after.chunks,
  failedUpdates: failed,
}));
