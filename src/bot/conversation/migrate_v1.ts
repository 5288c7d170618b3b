/**
 * Reading a dialogue stored by the earlier format (1: the whole webhook and parsed update per wait, the whole
 * response per action) in the current one, so a dialogue in progress continues after an upgrade.
 *
 * @module
 */

import { ApiResponse } from "../../client/response.ts";
import { WebhookPayloadDto } from "../../webhooks/payload.ts";
import type { BotMessage, BotUpdate } from "../update_types.ts";
import type { LogEntry } from "./replay.ts";
import {
  type ConversationRecord,
  storeAnswer,
  type StoredAnswer,
  type StoredWait,
  storeWait,
} from "./stored.ts";

/** A record of format 1 (before the stored steps were reduced), in format 2; undefined when not one. */
export function migrate(value: Record<string, unknown>): ConversationRecord | undefined {
  if (value.v !== undefined || typeof value.name !== "string" || typeof value.version !== "string") {
    return undefined;
  }
  if (!Array.isArray(value.log) || !isRecord(value.enter)) return undefined;
  const enter = migrateWait(value.enter);
  if (enter === undefined) return undefined;
  const log: LogEntry[] = [];
  for (const entry of value.log as unknown[]) {
    if (!isRecord(entry)) return undefined;
    if ("wait" in entry) {
      const wait = migrateWait(entry.wait);
      if (wait === undefined) return undefined;
      log.push({ wait });
    } else if (typeof entry.call === "string") {
      log.push(
        migrateCall(entry as { call: string; value?: unknown; error?: { name: string; message: string } }),
      );
    } else return undefined;
  }
  const record: ConversationRecord = { v: 2, name: value.name, version: value.version, enter, log };
  if (typeof value.deadline === "number") record.deadline = value.deadline;
  return record;
}

/** A format-1 wait (`{ raw, update, messages?, receivedAt, deliveryId? }`) in its reduced form. */
function migrateWait(old: unknown): StoredWait | undefined {
  if (!isRecord(old) || !isRecord(old.raw) || !isRecord(old.update) || typeof old.receivedAt !== "number") {
    return undefined;
  }
  const deliveryId = typeof old.deliveryId === "string" ? old.deliveryId : undefined;
  const payload = WebhookPayloadDto.from(old.raw, { receivedAt: old.receivedAt, deliveryId });
  if (payload === null) return undefined;
  const update = old.update as unknown as BotUpdate;
  const messages = Array.isArray(old.messages)
    ? old.messages as BotMessage[]
    : update.msg === undefined
    ? []
    : [update.msg];
  return storeWait(payload, update, messages);
}

/** A format-1 call: a send's logged answer (the whole response as JSON) reduced to status and key. */
function migrateCall(
  old: { call: string; value?: unknown; error?: { name: string; message: string } },
): LogEntry {
  if (old.error !== undefined) return { call: old.call, error: old.error };
  const sends = old.call === "reply" || old.call === "replyWithMedia" || old.call === "react";
  if (!sends || !isRecord(old.value) || typeof old.value.status !== "number") {
    return old.value === undefined ? { call: old.call } : { call: old.call, value: old.value };
  }
  const answer = new ApiResponse(old.value.status, new Headers(), old.value.data ?? null, 0, 0);
  const value: StoredAnswer | undefined = storeAnswer(answer);
  return { call: old.call, value };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
