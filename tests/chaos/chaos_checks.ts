/**
 * What a chaos run must show, read from the shared log and the mock server's sends. Each check returns
 * the violations it found as sentences (empty when the promise held), so that a failing case says what
 * broke: per-chat order, once-only handling, single replies, exact sessions, accepted deliveries.
 */

import type { ChaosMessage, Outcome } from "./chaos_deliveries.ts";

/** One line of the shared log (see chaos_worker.ts). */
export interface LogRecord {
  e: "arr" | "ans" | "start" | "end" | "error" | "killed";
  p: string;
  t: number;
  id?: string;
  chat?: string;
  d?: number | null;
  n?: number;
  message?: string;
}

export function readLog(path: string): LogRecord[] {
  return Deno.readTextFileSync(path).split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line)
  );
}

const LIMIT = 5; // sentences per check: enough to see the pattern

function capped(found: string[]): string[] {
  return found.length <= LIMIT ? found : [...found.slice(0, LIMIT), `... and ${found.length - LIMIT} more`];
}

/** Every delivery ended with a 2xx (the server did not give up on any). */
export function checkAccepted(outcomes: Outcome[]): string[] {
  return capped(
    outcomes.filter((o) => !o.accepted).map((o) => `${o.id} never accepted: ${o.answers.join(" | ")}`),
  );
}

/** No update failed but for the failures a message's flag asks for (`chaos: ... fails after its reply`). */
export function checkErrors(log: LogRecord[]): string[] {
  const found = new Map<string, string[]>();
  for (const r of log) {
    if (r.e !== "error" || r.message!.startsWith("Error: chaos:")) continue;
    found.set(r.message!, [...found.get(r.message!) ?? [], r.id!]);
  }
  return capped(
    [...found].map(([message, ids]) =>
      `${ids.length} failed runs (${ids.slice(0, 3).join(", ")}...): ${message}`
    ),
  );
}

/** Never two handlers of one chat at a time (a run ends with its end, its error, or its process's kill). */
export function checkOverlap(log: LogRecord[]): string[] {
  const running = new Map<string, Map<string, string>>(); // chat -> (process:id -> id)
  const found: string[] = [];
  for (const r of log) {
    if (r.e === "killed") {
      for (const inChat of running.values()) {
        for (const [key] of inChat) if (key.startsWith(`${r.p}:`)) inChat.delete(key);
      }
      continue;
    }
    if (r.e !== "start" && r.e !== "end" && r.e !== "error") continue;
    const inChat = running.get(r.chat!) ?? new Map<string, string>();
    running.set(r.chat!, inChat);
    if (r.e === "end" || r.e === "error") {
      inChat.delete(`${r.p}:${r.id}`);
      continue;
    }
    for (const [key, id] of inChat) {
      found.push(`chat ${r.chat}: ${r.id} started in ${r.p} while ${id} ran in ${key.split(":")[0]}`);
    }
    inChat.set(`${r.p}:${r.id}`, r.id!);
  }
  return capped(found);
}

/** Each message handled exactly once: one `end`, and no run after it. */
export function checkOnce(log: LogRecord[], messages: ChaosMessage[]): string[] {
  const found: string[] = [];
  for (const m of messages) {
    const ends = log.filter((r) => r.e === "end" && r.id === m.id);
    if (ends.length !== 1) found.push(`${m.id} (${m.chat} ${m.seq}) handled ${ends.length} times`);
    const endAt = log.findIndex((r) => r.e === "end" && r.id === m.id);
    const again = endAt < 0 ? [] : log.slice(endAt + 1).filter((r) => r.e === "start" && r.id === m.id);
    for (const r of again) {
      found.push(`${m.id} (${m.chat} ${m.seq}) ran again in ${r.p} after it was handled`);
    }
  }
  return capped(found);
}

/** One reply per message at the gateway (`re <chat> <seq>...`), whatever its runs sent. */
export function checkReplies(sent: readonly { text?: string }[], messages: ChaosMessage[]): string[] {
  const texts = new Map<string, string[]>();
  for (const { text } of sent) {
    const key = (text ?? "").split(" ").slice(1, 3).join(" ");
    texts.set(key, [...texts.get(key) ?? [], text ?? ""]);
  }
  const found: string[] = [];
  for (const m of messages) {
    const got = texts.get(`${m.chat} ${m.seq}`) ?? [];
    if (got.length !== 1) found.push(`${m.chat} ${m.seq}: ${got.length} replies ${JSON.stringify(got)}`);
  }
  return capped(found);
}

/** Each chat's session counter went 1, 2, ... up to its number of messages, each value saved once. */
export function checkSessions(log: LogRecord[], messages: ChaosMessage[]): string[] {
  const found: string[] = [];
  for (const chat of new Set(messages.map((m) => m.chat))) {
    const expected = messages.filter((m) => m.chat === chat).map((_, i) => i + 1);
    const counts = log.filter((r) => r.e === "end" && r.chat === chat).map((r) => r.n!).sort((a, b) => a - b);
    if (JSON.stringify(counts) !== JSON.stringify(expected)) {
      found.push(`chat ${chat}: session counts ${JSON.stringify(counts)}, expected 1..${expected.length}`);
    }
  }
  return capped(found);
}

interface Start {
  p: string;
  id: string;
  chat: string;
  /** Position of the arrival that this run came from, in the log. */
  arrived: number;
  t: number;
}

/**
 * Each handler start with the arrival it came from: the earliest webhook of its message at its process that
 * arrived before the start and was not answered yet (whatever the bot's internals run it from).
 */
function startsWithArrivals(log: LogRecord[]): Start[] {
  const starts: Start[] = [];
  log.forEach((r, i) => {
    if (r.e !== "start") return;
    const open = log.findIndex((a, j) =>
      j < i && a.e === "arr" && a.p === r.p && a.id === r.id &&
      !log.slice(j + 1, i).some((b) => b.e === "ans" && b.d === a.d)
    );
    if (open >= 0) starts.push({ p: r.p, id: r.id!, chat: r.chat!, arrived: open, t: log[open].t });
  });
  return starts;
}

/**
 * Order. In one process: a chat's updates start exactly in the order they reached that process. Across
 * processes: in arrival order, except for two arrivals at different processes less than `resolutionMs`
 * apart (their order is the order they reached the shared store). Returns the violations and the widest
 * cross-process inversion seen (ms; 0 when none), which is the resolution the run measured.
 */
export function checkOrder(log: LogRecord[], resolutionMs: number): { found: string[]; widestMs: number } {
  const found: string[] = [];
  let widestMs = 0;
  const starts = startsWithArrivals(log);
  for (const [j, later] of starts.entries()) {
    for (const earlier of starts.slice(0, j)) {
      if (earlier.chat !== later.chat || earlier.arrived < later.arrived || earlier.id === later.id) continue;
      // `later` arrived first but started second.
      if (earlier.p === later.p) {
        found.push(
          `in ${later.p}, chat ${later.chat}: ${earlier.id} started before ${later.id}, which arrived first`,
        );
        continue;
      }
      const gap = earlier.t - later.t;
      widestMs = Math.max(widestMs, gap);
      if (gap > resolutionMs) {
        found.push(
          `chat ${later.chat}: ${earlier.id} (at ${earlier.p}) started before ${later.id} (at ${later.p}), which arrived ${gap} ms earlier`,
        );
      }
    }
  }
  return { found: capped(found), widestMs };
}
