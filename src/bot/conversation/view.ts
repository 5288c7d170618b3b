/**
 * The contexts a dialogue sees. Each is a view of the live context (the update being handled now): the
 * update's own fields come from the update the view stands for (a logged one, on replay), everything else
 * (`api`, `state`, `session`, plugins' fields) from the live context, and the actions go through the
 * replay engine, so a replayed reply returns its logged answer instead of sending again, and a reply past
 * the log is sent (from the live context, so with its idempotency key) and logged.
 *
 * @module
 */

import type { BotMessage, BotUpdate } from "../update_types.ts";
import { type Context, CONTEXT_ACTIONS } from "../context.ts";
import { checkQueries, type FilterQuery } from "../filter.ts";
import { WebhookPayloadDto } from "../../webhooks/payload.ts";
import type { Replay } from "./replay.ts";

/** An update as the dialogue's log keeps it (JSON). */
export interface StoredUpdate {
  /** The envelope, without `apikey` and inline media (`base64`). */
  raw: Record<string, unknown>;
  /** The update read from it, with the canonical chat id the bot gave it. */
  update: BotUpdate;
  /** The messages of a debounced burst, when more than one. */
  messages?: BotMessage[];
  receivedAt: number;
  deliveryId?: string;
}

/** Reduce a context's update to what the log keeps. */
export function storeUpdate(ctx: Context): StoredUpdate {
  const { apikey: _secret, ...raw } = ctx.payload.raw as Record<string, unknown>;
  const data = raw.data;
  if (isRecord(data) && isRecord(data.message) && "base64" in data.message) {
    const { base64: _inline, ...message } = data.message;
    raw.data = { ...data, message };
  }
  const stored: StoredUpdate = { raw, update: ctx.update, receivedAt: ctx.payload.receivedAt };
  if (ctx.payload.deliveryId !== undefined) stored.deliveryId = ctx.payload.deliveryId;
  if (ctx.messages.length > 1) stored.messages = [...ctx.messages];
  return stored;
}

/** The fields a view takes from the update it stands for. */
function ownFields(stored: StoredUpdate): Record<PropertyKey, unknown> {
  const update = stored.update;
  const payload = WebhookPayloadDto.from(stored.raw, {
    receivedAt: stored.receivedAt,
    deliveryId: stored.deliveryId,
  });
  return {
    payload,
    update,
    instance: update.instance,
    chat: update.chat,
    from: update.from,
    msg: update.msg,
    text: update.msg?.text,
    status: update.status,
    group: update.group,
    connection: update.connection,
    call: update.call,
    messages: stored.messages ?? (update.msg === undefined ? [] : [update.msg]),
    match: undefined,
  };
}

/**
 * A view of `live` for the dialogue: for a logged update (`stored`) or for the live update itself.
 * `has` answers for the view's own update.
 */
export function contextView<C extends Context>(
  live: C,
  replay: Pick<Replay<C>, "call">,
  stored?: StoredUpdate,
): C {
  const own = stored === undefined ? undefined : ownFields(stored);
  const queries = own === undefined ? undefined : (own.update as BotUpdate).queries;
  return new Proxy(live, {
    get(target, property, receiver) {
      if (own !== undefined && Object.hasOwn(own, property)) return own[property];
      if (CONTEXT_ACTIONS.has(property)) {
        const action = Reflect.get(target, property, target) as (...args: unknown[]) => unknown;
        // Called on the view: the action acts on the view's own message, with the live context's keys.
        return (...args: unknown[]) => replay.call(String(property), () => action.apply(receiver, args));
      }
      if (property === "has" && queries !== undefined) {
        return (query: FilterQuery | readonly FilterQuery[]) =>
          checkQueries(query).some((q) => queries.includes(q));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, property, value) {
      if (own !== undefined && Object.hasOwn(own, property)) {
        own[property] = value;
        return true;
      }
      return Reflect.set(target, property, value, target);
    },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
