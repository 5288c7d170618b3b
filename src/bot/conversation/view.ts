/**
 * The contexts a dialogue sees: views of the live context whose update fields come from the stored step
 * (read-only), the rest (`api`, `state`, `session`, plugins') from the live one. Actions go through the
 * replay engine: a replayed reply resolves to its logged answer; one past the log is sent with the live
 * context's key, then logged.
 *
 * @module
 */

import { type Context, CONTEXT_ACTIONS } from "../context.ts";
import { checkQueries, type FilterQuery } from "../filter.ts";
import type { Replay } from "./replay.ts";
import {
  rebuildAnswer,
  rebuildWait,
  type RebuiltWait,
  storeAnswer,
  type StoredAnswer,
  type StoredWait,
  storeWait,
} from "./stored.ts";

/** The fields a view takes from its own update (and its own `match`). */
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

/** The value of one of a view's own fields (`match` aside), read from its rebuilt update. */
function ownField(rebuilt: RebuiltWait, property: PropertyKey): unknown {
  const update = rebuilt.update;
  switch (property) {
    case "payload":
      return rebuilt.payload;
    case "update":
      return update;
    case "text":
      return update.msg?.text;
    case "messages":
      return rebuilt.messages;
    default:
      return update[
        property as "instance" | "chat" | "from" | "msg" | "status" | "group" | "connection" | "call"
      ];
  }
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
  // Rebuilt at the first read of one of them (once per stored step: most replayed contexts are only awaited).
  let rebuilt: RebuiltWait | undefined;
  const own = () => rebuilt ??= rebuildWait(stored!);
  let match: string | RegExpMatchArray | undefined;
  return new Proxy(live, {
    get(target, property, receiver) {
      if (stored !== undefined && OWN.has(property)) {
        return property === "match" ? match : ownField(own(), property);
      }
      if (CONTEXT_ACTIONS.has(property)) {
        const action = Reflect.get(target, property, target) as (...args: unknown[]) => unknown;
        // Called on the view: the action acts on the view's own message, with the live context's keys.
        return (...args: unknown[]) =>
          replay.call(
            String(property),
            async () => storeAnswer(await action.apply(receiver, args)),
            (answer) => rebuildAnswer(answer as StoredAnswer | undefined),
          );
      }
      if (property === "has" && stored !== undefined) {
        const queries = own().update.queries;
        return (query: FilterQuery | readonly FilterQuery[]) =>
          checkQueries(query).some((q) => queries.includes(q));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, property, value) {
      if (stored !== undefined && property === "match") {
        match = value;
        return true;
      }
      if (stored !== undefined && OWN.has(property)) {
        throw new TypeError(
          `Cannot set "${String(property)}" of a dialogue's context: its update is read-only`,
        );
      }
      return Reflect.set(target, property, value, target);
    },
  });
}
