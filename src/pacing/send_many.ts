// Progress per batch in shared state (a restart skips what was sent); one runner per instance (a lease).

import { AuthenticationException, InstanceDisconnectedException, ValidationException } from "../errors.ts";
import { isOutcomeUnknown, isPermanentFailure } from "../send/outcome.ts";
import { instanceKey, type InstanceRef } from "../health/health_types.ts";
import type { StateStore } from "../store/state.ts";
import { SendPacer } from "./pacer.ts";
import { PACING_OPTION_KEYS, pacingOptions } from "./rules.ts";
import { checkOptionKeys, type OptionKeys, suggestKey } from "../option_keys.ts";
import { errorMessage } from "../util/error_message.ts";
import type {
  SendManyDeps,
  SendManyItem,
  SendManyItemResult,
  SendManyOptions,
  SendManyReport,
} from "./send_many_types.ts";
import { digestSha256 } from "../util/sha256.ts";

export type * from "./send_many_types.ts";

interface Progress {
  status: "sending" | "sent" | "failed" | "unknown";
  messageId?: string;
  error?: string;
  permanent?: boolean;
}

const PROGRESS = "send-many";
const LEASES = "send-many-lease";
const KEEP_PROGRESS_MS = 30 * 86_400_000;

async function defaultBatchId(items: readonly SendManyItem[]): Promise<string> {
  const keys = new TextEncoder().encode(items.map((item) => item.idempotencyKey).join("\n"));
  const digest = await digestSha256(keys);
  return [...digest.subarray(0, 12)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

const ITEM_KEYS: OptionKeys = { idempotencyKey: true, to: true, text: true, file: true };
const FILE_KEYS: OptionKeys = { source: true, type: true, fileName: true };

/** The fields `value` has and `keys` lacks (an item's `delay`, a misspelt `txt`: sent without them otherwise). */
const unknownFields = (value: unknown, keys: OptionKeys, label: string): string[] =>
  Object.keys(value ?? {}).filter((key) => !Object.hasOwn(keys, key)).map((key) => {
    const guess = suggestKey(key, keys);
    return `${label}.${key} is not a field${guess === undefined ? "" : `; did you mean "${guess}"?`}`;
  });

function checkItems(items: readonly SendManyItem[]): void {
  if (!Array.isArray(items)) {
    throw new ValidationException("Invalid bulk send: items must be an array", {
      messages: ["items must be an array"],
    });
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const key = item?.idempotencyKey;
    if (typeof key !== "string" || key.trim() === "") {
      problems.push(`items[${index}].idempotencyKey is required`);
    } else if (seen.has(key)) problems.push(`items[${index}].idempotencyKey "${key}" is used twice`);
    else seen.add(key);
    if (typeof item?.to !== "string" || item.to.trim() === "") {
      problems.push(`items[${index}].to is required`);
    }
    if (item?.file === undefined && (typeof item?.text !== "string" || item.text === "")) {
      problems.push(`items[${index}] needs a text or a file`);
    }
    problems.push(...unknownFields(item, ITEM_KEYS, `items[${index}]`));
    problems.push(...unknownFields(item?.file, FILE_KEYS, `items[${index}].file`));
  });
  if (problems.length > 0) {
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : "";
    throw new ValidationException(`Invalid bulk send: ${problems.slice(0, 3).join("; ")}${more}`, {
      messages: problems,
    });
  }
}

/** The keys of `SendManyOptions`: the pacing rules and the run's own settings. */
const SEND_MANY_OPTION_KEYS: OptionKeys = {
  ...PACING_OPTION_KEYS,
  batchId: true,
  instance: true,
  onProgress: true,
  signal: true,
  sleep: true,
  random: true,
  workerId: true,
  leaseMs: true,
};

/** Run a bulk send (see `messages().sendMany`). */
export async function runSendMany(
  deps: SendManyDeps,
  items: readonly SendManyItem[],
  options: SendManyOptions = {},
): Promise<SendManyReport> {
  checkOptionKeys(options, SEND_MANY_OPTION_KEYS, "messages().sendMany");
  checkItems(items);
  const sleep = options.sleep ?? deps.sleep;
  const batchId = options.batchId ?? await defaultBatchId(items);
  const run: BatchRun = {
    deps,
    items,
    options,
    sleep,
    pacer: new SendPacer(deps.state, pacingOptions(options), { now: deps.now, random: options.random }),
    batchId,
    report: emptyReport(batchId, items),
    done: 0,
  };
  const pending = await resumeEarlierRuns(run);
  const release = await acquireLease(deps.state, deps.ref, options, deps.now, sleep);
  try {
    await sendPending(run, pending, release);
  } finally {
    await release.end();
  }
  run.report.paused = run.report.items.filter((result) => result.status === "paused").length;
  return run.report;
}

/** One run of a batch: what it needs, and the report it fills in. */
interface BatchRun {
  deps: SendManyDeps;
  items: readonly SendManyItem[];
  options: SendManyOptions;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  pacer: SendPacer;
  batchId: string;
  report: SendManyReport;
  /** Items finished so far (this run and earlier ones). */
  done: number;
}

/** Every item starts `paused` (not tried) until the run finishes it. */
function emptyReport(batchId: string, items: readonly SendManyItem[]): SendManyReport {
  return {
    batchId,
    total: items.length,
    sent: 0,
    failed: 0,
    skipped: 0,
    paused: 0,
    unknown: 0,
    pause: null,
    items: items.map((item) => ({ idempotencyKey: item.idempotencyKey, to: item.to, status: "paused" })),
  };
}

function progressKey(run: BatchRun, item: SendManyItem): string {
  return `${run.batchId}/${encodeURIComponent(item.idempotencyKey)}`;
}

/** Keep an item's progress in the shared state, so a later run knows what this one did. */
async function saveProgress(run: BatchRun, item: SendManyItem, progress: Progress): Promise<void> {
  await run.deps.state.set(PROGRESS, progressKey(run, item), progress, {
    expiresAt: run.deps.now() + KEEP_PROGRESS_MS,
  });
}

/** Record an item's result in the report and tell `onProgress`. */
async function finishItem(
  run: BatchRun,
  index: number,
  result: Omit<SendManyItemResult, "idempotencyKey" | "to">,
): Promise<void> {
  const { report } = run;
  Object.assign(report.items[index], result);
  run.done++;
  if (result.status === "sent") report.sent++;
  else if (result.status === "failed") report.failed++;
  else if (result.status === "skipped") report.skipped++;
  else if (result.status === "unknown") report.unknown++;
  await run.options.onProgress?.({
    done: run.done,
    total: run.items.length,
    sent: report.sent,
    failed: report.failed,
    skipped: report.skipped,
    item: report.items[index],
  });
}

/** Finish what earlier runs settled; returns the indexes still to send, in input order. */
async function resumeEarlierRuns(run: BatchRun): Promise<number[]> {
  const pending: number[] = [];
  for (let index = 0; index < run.items.length; index++) {
    const item = run.items[index];
    const earlier = (await run.deps.state.get<Progress>(PROGRESS, progressKey(run, item)))?.value;
    if (earlier?.status === "sent") {
      await finishItem(run, index, { status: "skipped", messageId: earlier.messageId });
    } else if (earlier?.status === "failed" && earlier.permanent) {
      await finishItem(run, index, { status: "failed", error: earlier.error });
    } else if (earlier?.status === "unknown") {
      await finishItem(run, index, { status: "unknown", error: earlier.error });
    } else if (earlier?.status === "sending") {
      if (await resumeInterruptedSend(run, index)) pending.push(index);
    } else {
      pending.push(index);
    }
  }
  return pending;
}

/** An item an earlier run stopped mid-send: resent (true) only when the record store says it was not sent. */
async function resumeInterruptedSend(run: BatchRun, index: number): Promise<boolean> {
  const item = run.items[index];
  const record = await run.deps.store?.getOutbound(item.idempotencyKey).catch(() => null);
  if (record?.status === "sent") {
    await saveProgress(run, item, {
      status: "sent",
      ...(record.messageId ? { messageId: record.messageId } : {}),
    });
    await finishItem(run, index, { status: "skipped", messageId: record.messageId });
    return false;
  }
  if (record?.status === "failed" && !record.outcomeUnknown) return true;
  await finishItem(run, index, { status: "unknown", error: "an earlier run stopped during this send" });
  return false;
}

/** Send the pending items one at a time, at the pacer's pace, until done or a pause stops the run. */
async function sendPending(run: BatchRun, pending: number[], lease: Lease): Promise<void> {
  const { deps, options, pacer, report } = run;
  while (pending.length > 0) {
    if (options.signal?.aborted) {
      report.pause = { reason: "stopped", message: "the run was stopped", at: deps.now() };
      return;
    }
    const restricted = await deps.restricted();
    const pause = restricted
      ? await pacer.pause(deps.ref, "restricted", restricted)
      : await pacer.pauseFor(deps.ref);
    if (pause) {
      report.pause = pause;
      return;
    }
    const next = await nextReady(run, pending);
    const wait = next.at - deps.now();
    if (wait > 0) {
      try {
        await run.sleep(wait, options.signal);
      } catch (error) {
        if (!options.signal?.aborted) throw error;
        continue;
      }
    }
    await lease.renew();
    const index = pending.splice(next.slot, 1)[0];
    const stop = await sendItem(run, index);
    if (stop === "retry-next-run") pending.unshift(index);
    if (stop !== "go-on") return;
  }
}

/**
 * The next item: the one whose recipient is ready first (input order among equals), so one busy recipient
 * does not hold the others back; a recipient's own items keep their order.
 */
async function nextReady(run: BatchRun, pending: readonly number[]): Promise<{ slot: number; at: number }> {
  const jitter = run.pacer.jitter();
  let best = -1;
  let bestAt = Infinity;
  const seenRecipients = new Set<string>();
  for (let slot = 0; slot < pending.length; slot++) {
    const item = run.items[pending[slot]];
    if (seenRecipients.has(item.to)) continue;
    seenRecipients.add(item.to);
    const at = await run.pacer.readyAt(run.deps.ref, item.to, jitter);
    if (at < bestAt) {
      best = slot;
      bestAt = at;
    }
  }
  return { slot: best, at: bestAt };
}

/**
 * Send one item and settle it. `go-on` lets the run continue; `stop` ends it (the report says why);
 * `retry-next-run` ends it and puts the item back (it was not sent).
 */
async function sendItem(run: BatchRun, index: number): Promise<"go-on" | "stop" | "retry-next-run"> {
  const { deps, pacer } = run;
  const item = run.items[index];
  await saveProgress(run, item, { status: "sending" });
  try {
    const { messageId, replayed } = await deps.send(
      item,
      item.file ? undefined : pacer.typingDelay(item.text ?? ""),
    );
    await saveProgress(run, item, { status: "sent", ...(messageId ? { messageId } : {}) });
    // A replay sent nothing now: it does not count towards the pace or the daily cap, nor as sent.
    if (!replayed) await pacer.recordSent(deps.ref, item.to);
    await finishItem(run, index, {
      status: replayed ? "skipped" : "sent",
      ...(messageId ? { messageId } : {}),
    });
    return "go-on";
  } catch (error) {
    return await settleFailedSend(run, index, error);
  }
}

/** A send threw: record what it means for the item, and whether the run goes on. */
async function settleFailedSend(
  run: BatchRun,
  index: number,
  error: unknown,
): Promise<"go-on" | "stop" | "retry-next-run"> {
  const { deps, pacer, report } = run;
  const item = run.items[index];
  const message = errorMessage(error);
  if (isOutcomeUnknown(error)) {
    // It may have gone out: never resend it.
    await saveProgress(run, item, { status: "unknown", error: message });
    await pacer.recordFailure(deps.ref, message);
    await finishItem(run, index, { status: "unknown", error: message });
    return "go-on";
  }
  if (error instanceof InstanceDisconnectedException || error instanceof AuthenticationException) {
    // Not sent, and nothing else will go either: stop here; the item is tried again next run.
    await saveProgress(run, item, { status: "failed", error: message });
    const stop = error instanceof InstanceDisconnectedException && error.disconnect?.kind === "stop";
    report.pause = stop || error instanceof AuthenticationException
      ? await pacer.pause(deps.ref, stop ? "restricted" : "refused", message)
      : { reason: "disconnected", message, at: deps.now() };
    return "retry-next-run";
  }
  await saveProgress(run, item, { status: "failed", error: message, permanent: isPermanentFailure(error) });
  await finishItem(run, index, { status: "failed", error: message });
  const paused = await pacer.recordFailure(deps.ref, message);
  if (paused) {
    report.pause = paused;
    return "stop";
  }
  return "go-on";
}

interface Lease {
  renew(): Promise<void>;
  end(): Promise<void>;
}

/** One runner per instance: a lease in the shared state, waited for when another runner holds it. */
async function acquireLease(
  state: StateStore,
  ref: InstanceRef,
  options: SendManyOptions,
  now: () => number,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
): Promise<Lease> {
  const key = instanceKey(ref);
  const owner = options.workerId ?? crypto.randomUUID();
  const leaseMs = options.leaseMs ?? 60_000;
  let version: string | null = null;
  for (;;) {
    options.signal?.throwIfAborted();
    const entry = await state.get<{ owner: string }>(LEASES, key);
    if (!entry || entry.value.owner === owner) {
      version = await state.set(LEASES, key, { owner }, {
        expectedVersion: entry ? entry.version : null,
        expiresAt: now() + leaseMs,
      });
      if (version !== null) break;
      continue;
    }
    await sleep(Math.max(1, Math.min(leaseMs, (entry.expiresAt ?? now()) - now())), options.signal);
  }
  return {
    renew: async () => {
      let next = await state.set(LEASES, key, { owner }, {
        expectedVersion: version,
        expiresAt: now() + leaseMs,
      });
      // It expired while this runner waited out a long gap and nobody took it: take it again.
      if (next === null) {
        next = await state.set(LEASES, key, { owner }, { expectedVersion: null, expiresAt: now() + leaseMs });
      }
      if (next === null) {
        throw new Error(`Cannot send: another runner took over sending for instance "${ref.instance}"`);
      }
      version = next;
    },
    end: async () => {
      if (version !== null) await state.delete(LEASES, key, { expectedVersion: version });
    },
  };
}
