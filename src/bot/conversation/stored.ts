/**
 * What a dialogue's log keeps of each step. A wait: the webhook without `apikey`, `destination`,
 * `server_url`, `instanceId`, `source`, inline media and device metadata, and the update's fields that differ
 * from a fresh read. An action: its HTTP status and message key. The first run sees these stored forms too,
 * so a replay shows exactly what it showed.
 *
 * @module
 */

import { ApiResponse } from "../../client/response.ts";
import { WebhookPayloadDto } from "../../webhooks/payload.ts";
import { toBotUpdate } from "../update.ts";
import type { BotMessage, BotUpdate } from "../update_types.ts";
import type { LogEntry } from "./replay.ts";

/** A stored dialogue (format 2). */
export interface ConversationRecord {
  v: 2;
  name: string;
  version: string;
  enter: StoredWait;
  /** The steps after the sealed chunks. */
  log: LogEntry[];
  /** The sealed chunks, oldest first. */
  chunks?: ChunkRef[];
  /** When the current wait gives up (epoch ms on the bot's clock). */
  deadline?: number;
}

/** A sealed chunk of a dialogue's log: its id, how many steps it holds, and when it expires (if it does). */
export interface ChunkRef {
  id: string;
  n: number;
  until?: number;
}

/** An update as the dialogue's log keeps it (JSON). */
export interface StoredWait {
  /** The webhook, reduced. */
  r: Record<string, unknown>;
  /** The update's fields that differ from `toBotUpdate` of `r` (`null`: absent). */
  u?: Record<string, unknown>;
  /** When it was received (epoch ms). */
  t: number;
  /** Its delivery id, when it had one. */
  d?: string;
  /** The messages of a debounced burst, when more than one. */
  m?: BotMessage[];
}

/** What the log keeps of an action's answer: the HTTP status and the message key. */
export interface StoredAnswer {
  s: number;
  k?: Record<string, unknown>;
}

const ENVELOPE_DROPPED = new Set(["apikey", "destination", "server_url"]);
const DATA_DROPPED = new Set(["instanceId", "source"]);
const MESSAGE_DROPPED = new Set(["base64", "messageContextInfo"]);

/** Reduce a received update to its stored form. */
export function storeWait(
  payload: WebhookPayloadDto,
  update: BotUpdate,
  messages: readonly BotMessage[],
): StoredWait {
  const r = withoutKeys(payload.raw, ENVELOPE_DROPPED);
  r.event = payload.rawEvent;
  r.instance = payload.instance;
  if (isRecord(r.data)) {
    const data = withoutKeys(r.data, DATA_DROPPED);
    if (data.contextInfo === null) delete data.contextInfo;
    if (isRecord(data.message)) data.message = withoutKeys(data.message, MESSAGE_DROPPED);
    r.data = data;
  }
  // A copy (of what is kept): the stored form is frozen when rebuilt, and the live webhook stays as it came.
  const stored: StoredWait = { r: copyJson(r), t: payload.receivedAt };
  if (payload.deliveryId !== undefined) stored.d = payload.deliveryId;
  const derived = toBotUpdate(payloadOf(stored)) as unknown as Record<string, unknown>;
  const own = update as unknown as Record<string, unknown>;
  const u: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(own), ...Object.keys(derived)])) {
    if (JSON.stringify(own[key]) !== JSON.stringify(derived[key])) u[key] = own[key] ?? null;
  }
  if (Object.keys(u).length > 0) stored.u = copyJson(u);
  if (messages.length > 1) stored.m = copyJson([...messages]);
  return stored;
}

/** A stored wait as a dialogue sees it: its payload, update and burst (read-only). */
export interface RebuiltWait {
  payload: WebhookPayloadDto;
  update: BotUpdate;
  messages: readonly BotMessage[];
}

const rebuilt = new WeakMap<StoredWait, RebuiltWait>();

/**
 * A stored wait's payload, update and burst, frozen (a first run cannot differ from a replay), built once
 * per stored object (a cached chunk is not parsed again at each replay).
 */
export function rebuildWait(stored: StoredWait): RebuiltWait {
  const known = rebuilt.get(stored);
  if (known !== undefined) return known;
  const payload = payloadOf(stored);
  const update = toBotUpdate(payload) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(stored.u ?? {})) {
    if (value === null) delete update[key];
    else update[key] = copyJson(value);
  }
  const bot = update as unknown as BotUpdate;
  const messages = stored.m === undefined ? (bot.msg === undefined ? [] : [bot.msg]) : copyJson(stored.m);
  Object.freeze(payload);
  const result: RebuiltWait = { payload, update: deepFreeze(bot), messages: deepFreeze(messages) };
  rebuilt.set(stored, result);
  return result;
}

/** Freeze a JSON value and everything in it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function payloadOf(stored: StoredWait): WebhookPayloadDto {
  const payload = WebhookPayloadDto.from(deepFreeze(stored.r), {
    receivedAt: stored.t,
    deliveryId: stored.d,
  });
  if (payload === null) throw new TypeError("Cannot replay conversation: a stored update is not a webhook");
  return payload;
}

/** Reduce an action's answer (a send's `ApiResponse`, or nothing) to its stored form. */
export function storeAnswer(answer: unknown): StoredAnswer | undefined {
  if (!(answer instanceof ApiResponse)) return undefined;
  const key = (answer.data as { key?: unknown } | null)?.key;
  return isRecord(key) ? { s: answer.status, k: { ...key } } : { s: answer.status };
}

/** What a dialogue's action resolves to on every run: status and `data.key` (no headers; timings 0). */
export function rebuildAnswer(stored: StoredAnswer | undefined): ApiResponse | undefined {
  if (stored === undefined) return undefined;
  const data = stored.k === undefined ? null : { key: { ...stored.k } };
  return new ApiResponse(stored.s, new Headers(), data, 0, 0);
}

/** A copy of a JSON value (cheaper than `structuredClone` for plain data). */
export function copyJson<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

function withoutKeys(source: Readonly<Record<string, unknown>>, dropped: ReadonlySet<string>) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) if (!dropped.has(key)) out[key] = value;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
