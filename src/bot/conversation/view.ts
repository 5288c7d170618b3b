/**
 * The contexts a dialogue sees. Each is a view of the live context (the update being handled now): the
 * update's own fields come from the update the view stands for (a logged one, on replay), everything else
 * (`api`, `state`, `session`, plugins' fields) from the live context, and the actions go through the
 * replay engine, so a replayed reply returns its logged answer instead of sending again, and a reply past
 * the log is sent (from the live context, so with its idempotency key) and logged.
 *
 * @module
 */

import type { BotUpdate } from "../update_types.ts";
import type { Context } from "../context.ts";
import { checkQueries, type FilterQuery } from "../filter.ts";
import type { Replay } from "./replay.ts";
import {
  rebuildAnswer,
  rebuildWait,
  storeAnswer,
  type StoredAnswer,
  type StoredWait,
  storeWait,
} from "./stored.ts";

/** The context methods that act on the chat: logged, so a replay never repeats them. */
const ACTIONS: ReadonlySet<PropertyKey> = new Set(["reply", "replyWithMedia", "react", "markRead", "typing"]);

/** The fields a view takes from its own update. */
const OWN: ReadonlySet<PropertyKey> = new Set([
  "payload",
  "update",
  "instance",
  "chat",
  "from",
  "msg",
  "text",
  "status",
  "group",
  "connection",
  "call",
  "messages",
  "match",
]);

/** Reduce a context's update to what the log keeps. */
export function storeUpdate(ctx: Context): StoredWait {
  return storeWait(ctx.payload, ctx.update, ctx.messages);
}

/** The fields a view takes from the update it stands for. */
function ownFields(stored: StoredWait): Record<PropertyKey, unknown> {
  const { payload, update, messages } = rebuildWait(stored);
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
    messages,
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
  stored?: StoredWait,
): C {
  // Built at the first read of one of them: most replayed contexts are only awaited, or read once.
  let fields: Record<PropertyKey, unknown> | undefined;
  const own = () => fields ??= ownFields(stored!);
  return new Proxy(live, {
    get(target, property) {
      if (stored !== undefined && OWN.has(property)) return own()[property];
      if (ACTIONS.has(property)) {
        const action = Reflect.get(target, property, target) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) =>
          replay.call(String(property), async () => storeAnswer(await action.apply(target, args)))
            .then((answer) => rebuildAnswer(answer as StoredAnswer | undefined));
      }
      if (property === "has" && stored !== undefined) {
        const queries = (own().update as BotUpdate).queries;
        return (query: FilterQuery | readonly FilterQuery[]) =>
          checkQueries(query).some((q) => queries.includes(q));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, property, value) {
      if (stored !== undefined && OWN.has(property)) {
        own()[property] = value;
        return true;
      }
      return Reflect.set(target, property, value, target);
    },
  });
}
