/**
 * `reconcileInboundMessages`: finds inbound messages the receiver never got (the server drops a webhook
 * after its retries) and feeds them to the same `WebhookProcessor`, with the same per-message claims, so a
 * handler sees each message once whether it came by webhook or by reconciliation.
 *
 * Per instance and per chat, it asks `findMessages` for messages newer than the last one it checked
 * (`messageTimestamp` as ISO `gte`/`lte`: the server applies the filter only with both bounds and reads
 * them with `new Date(...)`; records come newest first, so pages are read from the last one back), and
 * records its progress per chat in the store's state after each page, so a run cut off midway resumes
 * where it stopped. `fromMe: false` is not filtered on the server (2.3.6 ignores a false `fromMe`), so
 * outbound records are skipped here.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { ChatRow, FindMessagesQuery, FindMessagesResponse, MessageRecord } from "../resources/types.ts";
import type { StateStore } from "../store/state.ts";
import type { GatewayStore } from "../store/store.ts";
import { WebhookPayloadDto } from "../webhooks/payload.ts";
import { type MessageOutcome, PROCESS_MESSAGE, type WebhookProcessor } from "../webhooks/processor.ts";
import { positiveInteger } from "../util/checks.ts";
import { errorMessage } from "../util/error_message.ts";

/** What the reconciler needs from a `GatewayService`. */
export interface ReconcileInboundService {
  /** The store (progress and claims), when `options.store` is not given. */
  getStore(): GatewayStore | undefined;
  /** The default instance, when `options.instances` is not given. */
  getInstanceName(): string | undefined;
  /** Metrics, counted when present. */
  getMetrics?(): MetricsCollector;
  /** A view bound to an instance. */
  instance(name: string): {
    chats(): {
      fetchAll(
        query?: Record<string, unknown>,
        options?: { signal?: AbortSignal },
      ): Promise<ApiResponse<ChatRow[]>>;
      findMessages(
        query?: FindMessagesQuery,
        options?: { signal?: AbortSignal },
      ): Promise<ApiResponse<FindMessagesResponse>>;
    };
  };
}

/** Options of {@link reconcileInboundMessages}. */
export interface ReconcileInboundOptions {
  /** The processor that runs the handlers (the one your webhook receiver uses). */
  processor: WebhookProcessor;
  /** Progress and claims (default the service's store; the processor must use the same one). */
  store?: GatewayStore;
  /** Instances to reconcile (default the service's instance). */
  instances?: readonly string[];
  /** At most this many messages checked per instance and run (default 1000). */
  maxMessages?: number;
  /** `findMessages` page size (default 50). */
  pageSize?: number;
  /** On a chat's first run, look this far back, in ms (default 24 hours). */
  lookbackMs?: number;
  /**
   * Also check again this far before each chat's cursor, in ms (default 10 minutes): a message whose
   * sender was offline arrives with its older send time. Those checks cost a claim lookup, not budget.
   */
  overlapMs?: number;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
  /** Stops the run between pages (progress so far is kept). */
  signal?: AbortSignal;
}

/** What one instance's run did. */
export interface ReconcileInboundInstanceResult {
  /** Instance name. */
  instance: string;
  /** Chats asked for messages (chats with nothing newer are skipped without a request). */
  chats: number;
  /** Inbound messages checked. */
  seen: number;
  /** Messages the handlers had not seen, now processed. */
  recovered: number;
  /** False when the run stopped before the end (budget, abort, a failure): the next run resumes. */
  complete: boolean;
  /** Failures (a handler or a request), by chat. */
  errors: { remoteJid: string; error: string }[];
}

/** What {@link reconcileInboundMessages} answers. */
export interface ReconcileInboundResult {
  /** Per instance. */
  instances: ReconcileInboundInstanceResult[];
  /** Inbound messages checked, in all. */
  seen: number;
  /** Messages recovered, in all. */
  recovered: number;
}

interface Progress {
  /** Unix seconds of the last message checked. */
  ts: number;
  /** Ids checked at that second (several messages can share one). */
  ids: string[];
}

const NAMESPACE = "reconcile_progress";
const PROGRESS_TTL_MS = 30 * 86_400_000;

function seconds(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}

/** The webhook body of a stored message (`findMessages` record → `messages.upsert` data). */
function messageRaw(record: MessageRecord): Record<string, unknown> {
  const updates = (record as { MessageUpdate?: { status?: string }[] }).MessageUpdate;
  const status = Array.isArray(updates) && updates.length > 0
    ? updates[updates.length - 1].status
    : undefined;
  return {
    key: record.key,
    pushName: record.pushName ?? null,
    status: status ?? "DELIVERY_ACK",
    message: record.message,
    contextInfo: (record as { contextInfo?: unknown }).contextInfo ?? null,
    messageType: record.messageType,
    messageTimestamp: record.messageTimestamp,
    instanceId: (record as { instanceId?: unknown }).instanceId,
    source: (record as { source?: unknown }).source,
  };
}

/**
 * Recover inbound messages whose webhooks never arrived: per instance and chat, ask `findMessages` for
 * messages newer than the last one checked (paged, at most `maxMessages` per run) and run the missing
 * ones through `processor` exactly once. Counts go to the service's metrics
 * (`gateway_reconcile_messages_total{result="seen"|"recovered"}`) and into the result.
 *
 * @example
 * ```ts
 * import { GatewayService, MemoryStore, WebhookProcessor } from "@gw/gateway";
 * import { reconcileInboundMessages } from "@gw/gateway/delivery";
 * const store = new MemoryStore();
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales", store });
 * const processor = new WebhookProcessor({ store }).on("messages.upsert", (p) => console.log(p.text));
 * const result = await reconcileInboundMessages(gw, { processor });
 * console.log(result.seen, result.recovered);
 * ```
 */
export async function reconcileInboundMessages(
  service: ReconcileInboundService,
  options: ReconcileInboundOptions,
): Promise<ReconcileInboundResult> {
  const store = options.store ?? service.getStore();
  if (store === undefined) {
    throw new TypeError(
      "Cannot reconcile messages: no store (pass `store`, or configure one on the service)",
    );
  }
  const processor = options.processor;
  if (processor.store === undefined) processor.useStore(store);
  if (processor.store !== store) {
    throw new TypeError("Cannot reconcile messages: the processor uses another store than the reconciler");
  }
  const instances = options.instances ?? [service.getInstanceName()].filter((name) => name !== undefined);
  if (instances.length === 0) {
    throw new TypeError(
      "Cannot reconcile messages: no instance (pass `instances`, or bind the service to one)",
    );
  }
  const settings = {
    maxMessages: positiveInteger("Cannot reconcile messages", "maxMessages", options.maxMessages, 1000),
    pageSize: positiveInteger("Cannot reconcile messages", "pageSize", options.pageSize, 50),
    lookbackMs: positiveInteger("Cannot reconcile messages", "lookbackMs", options.lookbackMs, 86_400_000),
    overlapMs: options.overlapMs === 0
      ? 0
      : positiveInteger("Cannot reconcile messages", "overlapMs", options.overlapMs, 600_000),
    now: options.now ?? Date.now,
    signal: options.signal,
  };
  const metrics = service.getMetrics?.();
  const result: ReconcileInboundResult = { instances: [], seen: 0, recovered: 0 };
  for (const instance of instances) {
    const one = await reconcileInstance(service, processor, store.state, instance, settings);
    metrics?.increment("gateway_reconcile_messages_total", { instance, result: "seen" }, one.seen);
    metrics?.increment("gateway_reconcile_messages_total", { instance, result: "recovered" }, one.recovered);
    result.instances.push(one);
    result.seen += one.seen;
    result.recovered += one.recovered;
  }
  return result;
}

interface Settings {
  maxMessages: number;
  pageSize: number;
  lookbackMs: number;
  overlapMs: number;
  now: () => number;
  signal?: AbortSignal;
}

async function reconcileInstance(
  service: ReconcileInboundService,
  processor: WebhookProcessor,
  state: StateStore,
  instance: string,
  settings: Settings,
): Promise<ReconcileInboundInstanceResult> {
  const out: ReconcileInboundInstanceResult = {
    instance,
    chats: 0,
    seen: 0,
    recovered: 0,
    complete: true,
    errors: [],
  };
  const chats = service.instance(instance).chats();
  const runStart = settings.now();
  const jids = chatsByJid((await chats.fetchAll({}, { signal: settings.signal })).data);
  let budget = settings.maxMessages;
  for (const chat of jids) {
    if (budget <= 0 || settings.signal?.aborted) {
      out.complete = false;
      break;
    }
    const key = `${instance}/${chat.remoteJid}`;
    const entry = await state.get<Progress>(NAMESPACE, key);
    const progress: Progress = entry?.value ??
      { ts: Math.floor((runStart - settings.lookbackMs) / 1000), ids: [] };
    // Nothing newer than what was checked: no request.
    if (checkedAlready(chat.lastMessage, progress, settings.overlapMs)) continue;
    out.chats++;
    try {
      const stopped = await reconcileChat(chats, processor, state, instance, chat.remoteJid, progress, {
        ...settings,
        runStart,
        budget: () => budget,
        spend: () => budget--,
        count: (outcome) => {
          out.seen++;
          if (outcome === "processed") out.recovered++;
        },
      });
      if (stopped) out.complete = false;
    } catch (error) {
      out.complete = false;
      out.errors.push({
        remoteJid: chat.remoteJid,
        error: errorMessage(error),
      });
    }
  }
  return out;
}

/** The instance's chats (not the status broadcast), in the order of their ids. */
function chatsByJid(rows: ChatRow[] | unknown): ChatRow[] {
  return (Array.isArray(rows) ? rows as ChatRow[] : [])
    .filter((row) => typeof row?.remoteJid === "string" && row.remoteJid !== "status@broadcast")
    .sort((a, b) => a.remoteJid < b.remoteJid ? -1 : a.remoteJid > b.remoteJid ? 1 : 0);
}

/** Whether a chat's last message is behind the chat's cursor (less the overlap): nothing new to look for. */
function checkedAlready(lastMessage: unknown, progress: Progress, overlapMs: number): boolean {
  const message = lastMessage as { messageTimestamp?: unknown; key?: { id?: string } } | null | undefined;
  const last = seconds(message?.messageTimestamp);
  const overlap = Math.floor(overlapMs / 1000);
  return last !== undefined &&
    (last < progress.ts - overlap ||
      (overlap === 0 && last === progress.ts && progress.ids.includes(message?.key?.id ?? "")));
}

interface ChatRun extends Settings {
  runStart: number;
  budget: () => number;
  spend: () => void;
  count: (outcome: MessageOutcome) => void;
}

/**
 * One message of a chat: an inbound one is fed to the processor (through its claim); the cursor moves past
 * it unless it is behind the cursor already. "stop" when the run must stop before it (budget spent, or
 * another delivery holds it and may still fail).
 */
async function reconcileRecord(
  record: MessageRecord,
  progress: Progress,
  run: ChatRun,
  feed: (id: string, record: MessageRecord) => Promise<MessageOutcome>,
): Promise<Progress | "stop"> {
  const id = record.key?.id;
  const ts = seconds(record.messageTimestamp);
  if (typeof id !== "string" || ts === undefined) return progress;
  const inbound = record.key.fromMe !== true;
  if (ts < progress.ts || (ts === progress.ts && progress.ids.includes(id))) {
    // Behind the cursor (the overlap): checked through its claim, without moving the cursor.
    if (inbound) {
      const outcome = await feed(id, record);
      if (outcome !== "busy") run.count(outcome);
    }
    return progress;
  }
  if (inbound) {
    if (run.budget() <= 0) return "stop";
    run.spend();
    const outcome = await feed(id, record);
    if (outcome === "busy") return "stop";
    run.count(outcome);
  }
  return ts === progress.ts ? { ts, ids: [...progress.ids, id] } : { ts, ids: [id] };
}

/** Check one chat's new messages, oldest first; true when it stopped before the end. */
async function reconcileChat(
  chats: ReturnType<ReturnType<ReconcileInboundService["instance"]>["chats"]>,
  processor: WebhookProcessor,
  state: StateStore,
  instance: string,
  remoteJid: string,
  start: Progress,
  run: ChatRun,
): Promise<boolean> {
  const query = (page: number): FindMessagesQuery => ({
    where: {
      key: { remoteJid },
      messageTimestamp: {
        gte: new Date((start.ts - Math.floor(run.overlapMs / 1000)) * 1000).toISOString(),
        lte: new Date(run.runStart).toISOString(),
      },
    },
    page,
    offset: run.pageSize,
  });
  const first = (await chats.findMessages(query(1), { signal: run.signal })).data?.messages;
  const pages = typeof first?.pages === "number" ? first.pages : 1;
  let progress = start;
  let saved = start;
  const save = async () => {
    if (progress !== saved) {
      await state.set(NAMESPACE, `${instance}/${remoteJid}`, progress, {
        expiresAt: run.now() + PROGRESS_TTL_MS,
      });
      saved = progress;
    }
  };
  const feed = (id: string, record: MessageRecord) => {
    const payload = WebhookPayloadDto.from(
      { event: "messages.upsert", instance, data: messageRaw(record) },
      { instance, deliveryId: `reconcile:${instance}:${id}` },
    )!;
    return processor[PROCESS_MESSAGE](payload);
  };
  try {
    for (let page = pages; page >= 1; page--) {
      if (run.signal?.aborted) return true;
      const records = page === 1
        ? first?.records ?? []
        : (await chats.findMessages(query(page), { signal: run.signal })).data?.messages?.records ?? [];
      const ascending = [...records].sort((a, b) => a.messageTimestamp - b.messageTimestamp);
      for (const record of ascending) {
        const next = await reconcileRecord(record, progress, run, feed);
        if (next === "stop") return true;
        progress = next;
      }
      await save();
    }
    return false;
  } finally {
    await save();
  }
}
