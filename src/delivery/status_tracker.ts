/**
 * `MessageStatusTracker`: the delivery status of each sent message by its `key.id`, fed by `send.message`,
 * `messages.update` (and `MessageSent`), kept in the store's shared state so that a process can wait for a
 * status another process received.
 *
 * A status only moves forward (PENDING → SERVER_ACK → DELIVERY_ACK → READ → PLAYED; ERROR is terminal and
 * only follows PENDING or SERVER_ACK). Every change is a compare-and-set on the entry's version, so
 * concurrent processes on one KV file never move a status backwards, whatever order updates arrive in.
 *
 * @module
 */

import { MessageStatusException } from "../errors.ts";
import { MessageSent } from "../events.ts";
import { MemoryState } from "../backends/memory/state.ts";
import type { StateStore } from "../store/state.ts";
import type { GatewayStore } from "../store/store.ts";
import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import { abortableSleep } from "../timing.ts";
import { isRecord, nonEmptyString } from "../util/json_shape.ts";
import {
  isAdvance,
  type MessageStatusUpdate,
  parseMessageStatus,
  reached,
  updatesOf,
} from "./status_updates.ts";
import {
  type MessageStatus,
  MessageStatusChanged,
  type MessageStatusRecord,
  MessageStuck,
  type StuckCause,
} from "./status_events.ts";
import { positiveNumber, timerMs } from "../util/checks.ts";

const NAMESPACE = "message_status";
const CONNECTION_NAMESPACE = "instance_connection";
const MAX_ROUNDS = 50;
const DAY_MS = 86_400_000;

/** Options of {@link MessageStatusTracker}. */
export interface MessageStatusTrackerOptions {
  /** Where statuses are kept (a store's `state`, or a `StateStore`); default: memory of this object. */
  store?: GatewayStore | StateStore;
  /** Where `MessageStatusChanged` and `MessageStuck` are dispatched (default a new `EventTarget`). */
  events?: EventTarget;
  /** A message still PENDING this long is stuck (default 300 000 ms, five minutes). */
  stuckAfterMs?: number;
  /** How long a status is kept after its last change (default 7 days). */
  retentionMs?: number;
  /** How often `waitFor` reads the store while waiting (default 500 ms). */
  pollIntervalMs?: number;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
  /** Sleep used by `waitFor` between reads; must reject when `signal` aborts (default a timer). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Options of {@link MessageStatusTracker.waitFor}. */
export interface WaitForStatusOptions {
  /** Stops the wait (rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Give up after this long, with a `MessageStatusException` (default 60 000 ms). */
  timeoutMs?: number;
}

/**
 * The delivery status of each sent message, by `key.id`, in the store: `observe` webhooks (a
 * `WebhookProcessor` with a store does it for you: `processor.messageStatus`), then `get` a status or
 * `waitFor` one, from any process on the same store.
 *
 * @example
 * ```ts
 * import { WebhookPayloadDto } from "@gw/gateway";
 * import { MessageStatusTracker } from "@gw/gateway/delivery";
 * const tracker = new MessageStatusTracker();
 * await tracker.observe(WebhookPayloadDto.from({
 *   event: "messages.update",
 *   instance: "sales",
 *   data: { keyId: "3EB0", remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, status: "DELIVERY_ACK" },
 * })!);
 * (await tracker.get("3EB0"))?.status; // "DELIVERY_ACK"
 * await tracker.waitFor("3EB0", "SERVER_ACK"); // resolves at once: DELIVERY_ACK is further
 * ```
 */
export class MessageStatusTracker {
  /** Where `MessageStatusChanged` and `MessageStuck` are dispatched. */
  readonly events: EventTarget;
  readonly #state: StateStore;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #stuckAfter: number;
  readonly #retention: number;
  readonly #poll: number;

  /** Create a tracker. */
  constructor(options: MessageStatusTrackerOptions = {}) {
    const store = options.store;
    this.#now = options.now ?? Date.now;
    this.#state = store === undefined
      ? new MemoryState({ now: this.#now })
      : "state" in store && typeof store.state === "object"
      ? store.state
      : store as StateStore;
    this.events = options.events ?? new EventTarget();
    this.#sleep = options.sleep ?? abortableSleep;
    this.#stuckAfter = positiveNumber(
      "Cannot track message status",
      "stuckAfterMs",
      options.stuckAfterMs,
      300_000,
    );
    this.#retention = positiveNumber(
      "Cannot track message status",
      "retentionMs",
      options.retentionMs,
      7 * DAY_MS,
    );
    this.#poll = timerMs("Cannot track message status", "pollIntervalMs", options.pollIntervalMs, 500);
  }

  /**
   * Apply what a webhook (`send.message`, `messages.update`, `messages.upsert` from us, `connection.update`),
   * a `MessageSent` event or a plain update reports. Returns the records whose status moved forward
   * (empty for duplicates and out-of-order updates).
   */
  async observe(
    input: WebhookPayloadDto | MessageSent | MessageStatusUpdate,
  ): Promise<MessageStatusRecord[]> {
    let updates: MessageStatusUpdate[];
    if (input instanceof MessageSent) {
      if (input.messageId === null) return [];
      const response = isRecord(input.response) ? input.response : {};
      const key = isRecord(response.key) ? response.key : {};
      const update: MessageStatusUpdate = {
        messageId: input.messageId,
        status: nonEmptyString(response.status) ?? "PENDING",
        instance: input.instance,
      };
      const remoteJid = nonEmptyString(key.remoteJid);
      if (remoteJid !== undefined) update.remoteJid = remoteJid;
      updates = [update];
    } else if ("messageId" in input && !("event" in input)) {
      updates = [input];
    } else {
      const payload = input as WebhookPayloadDto;
      if (payload.event === "CONNECTION_UPDATE") {
        await this.#recordConnection(payload);
        return [];
      }
      updates = updatesOf(payload);
    }
    const changed: MessageStatusRecord[] = [];
    for (const update of updates) {
      const record = await this.#apply(update);
      if (record !== null) changed.push(record);
    }
    return changed;
  }

  async #recordConnection(payload: WebhookPayloadDto): Promise<void> {
    const state = payload.connectionState;
    if (state === undefined || payload.instance === "") return;
    await this.#state.set(CONNECTION_NAMESPACE, payload.instance, { state, at: this.#now() }, {
      expiresAt: this.#now() + this.#retention,
    });
  }

  async #apply(update: MessageStatusUpdate): Promise<MessageStatusRecord | null> {
    const status = parseMessageStatus(update.status);
    if (status === undefined || typeof update.messageId !== "string" || update.messageId === "") return null;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const entry = await this.#state.get<MessageStatusRecord>(NAMESPACE, update.messageId);
      const previous = entry?.value;
      if (!isAdvance(previous?.status, status)) return null;
      const now = this.#now();
      const record: MessageStatusRecord = {
        ...previous,
        messageId: update.messageId,
        status,
        firstSeenAt: previous?.firstSeenAt ?? now,
        updatedAt: now,
      };
      if (update.instance !== undefined) record.instance ??= update.instance;
      if (update.remoteJid !== undefined) record.remoteJid ??= update.remoteJid;
      const version = await this.#state.set(NAMESPACE, update.messageId, record, {
        expectedVersion: entry?.version ?? null,
        expiresAt: now + this.#retention,
      });
      if (version !== null) {
        this.events.dispatchEvent(new MessageStatusChanged(record, previous?.status ?? null));
        return record;
      }
      // Another process wrote first: decide again on what it wrote.
    }
    throw new Error(`Cannot record status of message "${update.messageId}": too many concurrent writers`);
  }

  /** The record of a message (`key.id`), or null when no status was seen for it. */
  async get(id: string): Promise<MessageStatusRecord | null> {
    return (await this.#state.get<MessageStatusRecord>(NAMESPACE, id))?.value ?? null;
  }

  /**
   * Wait until message `id` reaches `status` (or a later one) and return its record. Reads the store,
   * so a webhook processed by another process on the same store ends the wait; a change observed by this
   * tracker ends it at once. Rejects with `MessageStatusException` when the message reaches `ERROR` (unless
   * that was awaited) or after `timeoutMs` (with the likely causes when it is still pending), and with
   * the signal's reason when `signal` aborts.
   */
  async waitFor(
    id: string,
    status: MessageStatus,
    options: WaitForStatusOptions = {},
  ): Promise<MessageStatusRecord> {
    const target = parseMessageStatus(status);
    if (target === undefined) throw new RangeError(`Cannot wait for message status "${String(status)}"`);
    const timeoutMs = timerMs("Cannot track message status", "timeoutMs", options.timeoutMs, 60_000);
    const deadline = this.#now() + timeoutMs;
    const outer = options.signal;
    for (;;) {
      outer?.throwIfAborted();
      const record = await this.get(id);
      if (record !== null && reached(record.status, target)) return record;
      if (record?.status === "ERROR") {
        throw new MessageStatusException(`Cannot deliver message "${id}": the server reported ERROR`, {
          messageId: id,
          deliveryStatus: "ERROR",
          instance: record.instance,
        });
      }
      const left = deadline - this.#now();
      if (left <= 0) {
        const causes = record === null || record.status === "PENDING" ? await this.causesOf(record) : [];
        throw new MessageStatusException(
          `Cannot confirm message "${id}": not ${target} after ${timeoutMs} ms (last status ${
            record?.status ?? "none"
          })`,
          { messageId: id, deliveryStatus: record?.status ?? null, causes, instance: record?.instance },
        );
      }
      await this.#pause(id, Math.min(this.#poll, left), outer);
    }
  }

  // Sleep until the next read, cut short by a local change of this message or by the caller's signal.
  async #pause(id: string, ms: number, outer: AbortSignal | undefined): Promise<void> {
    const wake = new AbortController();
    const onChange = (event: Event) => {
      if ((event as MessageStatusChanged).messageId === id) wake.abort();
    };
    const onAbort = () => wake.abort(outer?.reason);
    this.events.addEventListener(MessageStatusChanged.type, onChange);
    outer?.addEventListener("abort", onAbort, { once: true });
    try {
      await this.#sleep(ms, wake.signal);
    } catch (error) {
      if (!wake.signal.aborted) throw error;
    } finally {
      this.events.removeEventListener(MessageStatusChanged.type, onChange);
      outer?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * The likely causes of a message still pending, most likely first: a `@lid`-only recipient, an
   * instance whose last `connection.update` was not `open`, a recipient without an account.
   *
   * @example
   * ```ts
   * import { MessageStatusTracker } from "@gw/gateway/delivery";
   * await new MessageStatusTracker().causesOf({
   *   messageId: "3EB0", status: "PENDING", remoteJid: "123@lid", firstSeenAt: 0, updatedAt: 0,
   * }); // ["lid_only_recipient", "instance_not_open", "recipient_not_on_whatsapp"]
   * ```
   */
  async causesOf(record: MessageStatusRecord | null): Promise<StuckCause[]> {
    const causes: StuckCause[] = [];
    if (record?.remoteJid?.endsWith("@lid")) causes.push("lid_only_recipient");
    const connection = record?.instance === undefined
      ? null
      : await this.#state.get<{ state: string }>(CONNECTION_NAMESPACE, record.instance);
    if (connection?.value.state !== "open") {
      // Known closed: the likeliest cause. Unknown: still possible.
      if (connection !== null) causes.unshift("instance_not_open");
      else causes.push("instance_not_open");
    }
    if (!record?.remoteJid?.endsWith("@g.us")) causes.push("recipient_not_on_whatsapp");
    return causes;
  }

  /**
   * Find messages still `PENDING` after `stuckAfterMs` and dispatch `MessageStuck` once for each (the
   * record is marked with compare-and-set, so concurrent checkers report a message once). Returns them.
   * The scheduled `reconcile` task runs it; call it from your own timer otherwise.
   *
   * @example
   * ```ts
   * import { MessageStatusTracker } from "@gw/gateway/delivery";
   * let now = 0;
   * const tracker = new MessageStatusTracker({ stuckAfterMs: 1000, now: () => now });
   * await tracker.observe({ messageId: "3EB0", status: "PENDING", instance: "sales" });
   * now = 5000;
   * (await tracker.checkStuck()).length; // 1
   * ```
   */
  async checkStuck(options: { limit?: number } = {}): Promise<MessageStuck[]> {
    const out: MessageStuck[] = [];
    const now = this.#now();
    for (const entry of await this.#state.list<MessageStatusRecord>(NAMESPACE, { limit: options.limit })) {
      const record = entry.value;
      if (
        record.status !== "PENDING" || record.stuckReported || now - record.firstSeenAt < this.#stuckAfter
      ) {
        continue;
      }
      const marked: MessageStatusRecord = { ...record, stuckReported: true };
      const version = await this.#state.set(NAMESPACE, entry.key, marked, {
        expectedVersion: entry.version,
        expiresAt: entry.expiresAt,
      });
      if (version === null) continue;
      const event = new MessageStuck(marked, now - record.firstSeenAt, await this.causesOf(marked));
      this.events.dispatchEvent(event);
      out.push(event);
    }
    return out;
  }
}
