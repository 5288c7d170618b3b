/**
 * `sendMany`: a paced, resumable bulk send. Each item carries an idempotency key; progress is kept per
 * batch in the store's shared state, so a restarted process skips what an earlier run sent. One runner
 * at a time sends for an instance (a lease in the shared state), at the pace `SendPacer` sets.
 *
 * @module
 */

import { AuthenticationException, InstanceDisconnectedException, ValidationException } from "../errors.ts";
import { isOutcomeUnknown, isPermanentFailure } from "../send/outcome.ts";
import { instanceKey, type InstanceRef } from "../health/health_types.ts";
import type { MediaKind, MediaSource } from "../media/media_input.ts";
import type { StateStore } from "../store/state.ts";
import type { GatewayStore } from "../store/store.ts";
import { type PacingPause, SendPacer } from "./pacer.ts";
import type { PacingOptions } from "./rules.ts";
import { errorMessage } from "../util/error_message.ts";

/** One message of a bulk send: a text, or a file (with an optional caption). */
export interface SendManyItem {
  /** Unique per message and stable across runs: passed to the send, and how a rerun knows it was sent. */
  idempotencyKey: string;
  /** Recipient (number or JID). */
  to: string;
  /** The text (or a file's caption). */
  text?: string;
  /** A file to send instead of a text. */
  file?: { source: MediaSource; type: MediaKind; fileName?: string };
}

/** What happened to one item. */
export type SendManyItemStatus = "sent" | "failed" | "skipped" | "paused" | "unknown";

/** One item's result. */
export interface SendManyItemResult {
  /** The item's idempotency key. */
  idempotencyKey: string;
  /** Recipient. */
  to: string;
  /**
   * `sent` (by this run), `skipped` (sent before: by an earlier run, or by another send with the same
   * idempotency key, whose answer the idempotency claim replayed), `failed`, `paused` (not tried), `unknown`
   * (an earlier run was stopped mid-send; not resent).
   */
  status: SendManyItemStatus;
  /** The message id, when sent. */
  messageId?: string;
  /** Why it failed. */
  error?: string;
}

/** A progress event: after each item. */
export interface SendManyProgress {
  /** Items finished so far (this run and earlier ones). */
  done: number;
  /** Items in the batch. */
  total: number;
  /** Counts so far. */
  sent: number;
  /** Failed so far. */
  failed: number;
  /** Skipped (sent before this run). */
  skipped: number;
  /** The item just finished. */
  item: SendManyItemResult;
}

/** The final report. */
export interface SendManyReport {
  /** The batch id (progress is kept under it). */
  batchId: string;
  /** Items in the batch. */
  total: number;
  /** Sent by this run. */
  sent: number;
  /** Failed in this run (or permanently in an earlier one). */
  failed: number;
  /** Sent before this run: by an earlier run, or by a send with the same idempotency key (a replay). */
  skipped: number;
  /** Not tried because sending is paused. */
  paused: number;
  /** Stopped mid-send by an earlier run: maybe sent, so not resent. */
  unknown: number;
  /** The pause that stopped the run, if one did. */
  pause: PacingPause | null;
  /** Every item, in input order. */
  items: SendManyItemResult[];
}

/** Options of `messages().sendMany(items, options)`. */
export interface SendManyOptions extends PacingOptions {
  /** The batch's id (default: derived from the items' keys, so the same items resume the same batch). */
  batchId?: string;
  /** Instance to send from (default: the bound one). */
  instance?: string;
  /** Called after each item (awaited). */
  onProgress?: (progress: SendManyProgress) => void | Promise<void>;
  /** Stops the run between items (the report counts what is left as paused). */
  signal?: AbortSignal;
  /** Sleep used for the pacing waits (default: the client's; tests inject one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random number in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
  /** Stable id of this runner: a restarted runner with the same id takes over its own lease at once. */
  workerId?: string;
  /** How long a runner's lease on an instance lasts without renewal, in ms (default 60000). */
  leaseMs?: number;
}

/** What the runner needs from the service, bound to one instance. */
export interface SendManyDeps {
  /** The instance. */
  ref: InstanceRef;
  /** Shared state (store.state, or the service's memory state). */
  state: StateStore;
  /** The record store, when configured (tells what an interrupted send did). */
  store?: GatewayStore;
  /** Clock. */
  now: () => number;
  /** Default sleep. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Send one item; resolves the message id, and whether the idempotency claim replayed an earlier send. */
  send: (item: SendManyItem, delay: number | undefined) => Promise<SentItem>;
  /** Whether the instance is known banned or restricted, with the reason. */
  restricted: () => Promise<string | undefined>;
}

/** What one send did: `replayed` when the idempotency claim answered with an earlier send's result. */
export interface SentItem {
  /** The message id, when the server gave one. */
  messageId?: string;
  /** True when nothing was sent now: an earlier send with the same key had sent it. */
  replayed: boolean;
}

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
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", keys));
  return [...digest.subarray(0, 12)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

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
  });
  if (problems.length > 0) {
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : "";
    throw new ValidationException(`Invalid bulk send: ${problems.slice(0, 3).join("; ")}${more}`, {
      messages: problems,
    });
  }
}

/** Run a bulk send (see `messages().sendMany`). */
export async function runSendMany(
  deps: SendManyDeps,
  items: readonly SendManyItem[],
  options: SendManyOptions = {},
): Promise<SendManyReport> {
  checkItems(items);
  const { state, ref, now } = deps;
  const sleep = options.sleep ?? deps.sleep;
  const pacer = new SendPacer(state, options, { now, random: options.random });
  const batchId = options.batchId ?? await defaultBatchId(items);
  const progressKey = (item: SendManyItem) => `${batchId}/${encodeURIComponent(item.idempotencyKey)}`;
  const results: SendManyItemResult[] = items.map((item) => ({
    idempotencyKey: item.idempotencyKey,
    to: item.to,
    status: "paused",
  }));
  const report: SendManyReport = {
    batchId,
    total: items.length,
    sent: 0,
    failed: 0,
    skipped: 0,
    paused: 0,
    unknown: 0,
    pause: null,
    items: results,
  };
  let done = 0;
  const finish = async (index: number, result: Omit<SendManyItemResult, "idempotencyKey" | "to">) => {
    Object.assign(results[index], result);
    done++;
    if (result.status === "sent") report.sent++;
    else if (result.status === "failed") report.failed++;
    else if (result.status === "skipped") report.skipped++;
    else if (result.status === "unknown") report.unknown++;
    await options.onProgress?.({
      done,
      total: items.length,
      sent: report.sent,
      failed: report.failed,
      skipped: report.skipped,
      item: results[index],
    });
  };
  const save = (item: SendManyItem, progress: Progress) =>
    state.set(PROGRESS, progressKey(item), progress, { expiresAt: now() + KEEP_PROGRESS_MS });

  // What earlier runs did.
  const pending: number[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const earlier = (await state.get<Progress>(PROGRESS, progressKey(item)))?.value;
    if (earlier?.status === "sent") {
      await finish(index, { status: "skipped", messageId: earlier.messageId });
    } else if (earlier?.status === "failed" && earlier.permanent) {
      await finish(index, { status: "failed", error: earlier.error });
    } else if (earlier?.status === "unknown") {
      await finish(index, { status: "unknown", error: earlier.error });
    } else if (earlier?.status === "sending") {
      // Stopped mid-send: the record store says what happened, if it knows; otherwise never resend.
      const record = await deps.store?.getOutbound(item.idempotencyKey).catch(() => null);
      if (record?.status === "sent") {
        await save(item, { status: "sent", ...(record.messageId ? { messageId: record.messageId } : {}) });
        await finish(index, { status: "skipped", messageId: record.messageId });
      } else if (record?.status === "failed" && !record.outcomeUnknown) {
        pending.push(index);
      } else {
        await finish(index, { status: "unknown", error: "an earlier run stopped during this send" });
      }
    } else {
      pending.push(index);
    }
  }

  const release = await acquireLease(state, ref, options, now, sleep);
  try {
    while (pending.length > 0) {
      if (options.signal?.aborted) {
        report.pause = { reason: "stopped", message: "the run was stopped", at: now() };
        break;
      }
      const restricted = await deps.restricted();
      const pause = restricted ? await pacer.pause(ref, "restricted", restricted) : await pacer.pauseFor(ref);
      if (pause) {
        report.pause = pause;
        break;
      }
      // The next item: the one whose recipient is ready first (input order among equals), so one busy
      // recipient does not hold the others back; a recipient's own items keep their order.
      const jitter = pacer.jitter();
      let best = -1;
      let bestAt = Infinity;
      const seenRecipients = new Set<string>();
      for (let slot = 0; slot < pending.length; slot++) {
        const item = items[pending[slot]];
        if (seenRecipients.has(item.to)) continue;
        seenRecipients.add(item.to);
        const at = await pacer.readyAt(ref, item.to, jitter);
        if (at < bestAt) {
          best = slot;
          bestAt = at;
        }
      }
      const wait = bestAt - now();
      if (wait > 0) {
        try {
          await sleep(wait, options.signal);
        } catch (error) {
          if (!options.signal?.aborted) throw error;
          continue;
        }
      }
      await release.renew();
      const index = pending.splice(best, 1)[0];
      const item = items[index];
      await save(item, { status: "sending" });
      try {
        const { messageId, replayed } = await deps.send(
          item,
          item.file ? undefined : pacer.typingDelay(item.text ?? ""),
        );
        await save(item, { status: "sent", ...(messageId ? { messageId } : {}) });
        // A replay sent nothing now: it does not count towards the pace or the daily cap, nor as sent.
        if (!replayed) await pacer.recordSent(ref, item.to);
        await finish(index, { status: replayed ? "skipped" : "sent", ...(messageId ? { messageId } : {}) });
      } catch (error) {
        const message = errorMessage(error);
        if (isOutcomeUnknown(error)) {
          // It may have gone out: never resend it.
          await save(item, { status: "unknown", error: message });
          await pacer.recordFailure(ref, message);
          await finish(index, { status: "unknown", error: message });
          continue;
        }
        if (error instanceof InstanceDisconnectedException || error instanceof AuthenticationException) {
          // Not sent, and nothing else will go either: stop here; the item is tried again next run.
          await save(item, { status: "failed", error: message });
          pending.unshift(index);
          const stop = error instanceof InstanceDisconnectedException && error.disconnect?.kind === "stop";
          report.pause = stop || error instanceof AuthenticationException
            ? await pacer.pause(ref, stop ? "restricted" : "refused", message)
            : { reason: "disconnected", message, at: now() };
          break;
        }
        await save(item, { status: "failed", error: message, permanent: isPermanentFailure(error) });
        await finish(index, { status: "failed", error: message });
        const paused = await pacer.recordFailure(ref, message);
        if (paused) {
          report.pause = paused;
          break;
        }
      }
    }
  } finally {
    await release.end();
  }
  report.paused = results.filter((result) => result.status === "paused").length;
  return report;
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
