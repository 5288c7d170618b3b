import { ConfigurationException } from "../errors.ts";
import { type OptionKeys, suggestKey } from "../option_keys.ts";
import { FILTER_QUERIES, FILTER_QUERY_NAMES, type FilterQuery } from "./filter_table.ts";
import type {
  BotCall,
  BotChat,
  BotConnection,
  BotGroupChange,
  BotMedia,
  BotMessage,
  BotSender,
} from "./update_types.ts";

export type { FilterQuery } from "./filter_table.ts";

/** What every inbound message query guarantees: a message (with `M`'s fields set), a chat, a sender. */
export interface MessageFields<M extends Partial<BotMessage> = Record<never, never>> {
  /** The message. */
  readonly msg: BotMessage & M;
  /** The chat. */
  readonly chat: BotChat;
  /** The sender. */
  readonly from: BotSender;
}

/** What the media queries guarantee. */
export type WithMedia = MessageFields<{ media: BotMedia }>;

/** The fields each query guarantees, as types. */
export interface FilterNarrowing {
  /** Under `message`. */
  "message": MessageFields;
  /** Under `message:text`. */
  "message:text": MessageFields<{ text: string }> & { readonly text: string };
  /** Under `message:image`. */
  "message:image": WithMedia;
  /** Under `message:video`. */
  "message:video": WithMedia;
  /** Under `message:audio`. */
  "message:audio": WithMedia;
  /** Under `message:document`. */
  "message:document": WithMedia;
  /** Under `message:sticker`. */
  "message:sticker": WithMedia;
  /** Under `message:location`. */
  "message:location": MessageFields<{ location: NonNullable<BotMessage["location"]> }>;
  /** Under `message:contact`. */
  "message:contact": MessageFields<{ contacts: NonNullable<BotMessage["contacts"]> }>;
  /** Under `message:reaction`. */
  "message:reaction": MessageFields<{ reaction: string }>;
  /** Under `message:button`. */
  "message:button": MessageFields<{ buttonId: string }>;
  /** Under `message:list`. */
  "message:list": MessageFields<{ rowId: string }>;
  /** Under `message:poll`. */
  "message:poll": MessageFields<{ poll: NonNullable<BotMessage["poll"]> }>;
  /** Under `edit`. */
  "edit": MessageFields;
  /** Under `delete`. */
  "delete": { readonly msg: BotMessage; readonly chat: BotChat };
  /** Under `status`. */
  "status": { readonly msg: BotMessage; readonly chat: BotChat; readonly status: string };
  /** Under `group:join`. */
  "group:join": { readonly chat: BotChat; readonly group: BotGroupChange };
  /** Under `group:leave`. */
  "group:leave": { readonly chat: BotChat; readonly group: BotGroupChange };
  /** Under `group:promote`. */
  "group:promote": { readonly chat: BotChat; readonly group: BotGroupChange };
  /** Under `group:demote`. */
  "group:demote": { readonly chat: BotChat; readonly group: BotGroupChange };
  /** Under `connection`. */
  "connection": { readonly connection: BotConnection };
  /** Under `call`. */
  "call": { readonly chat: BotChat; readonly from: BotSender; readonly call: BotCall };
  /** Under `outgoing`. */
  "outgoing": { readonly msg: BotMessage; readonly chat: BotChat };
  /** Under `story`. */
  "story": { readonly msg: BotMessage; readonly from: BotSender };
}

/**
 * The context `C` narrowed by query `Q` (a union of queries gives a union of narrowed contexts).
 *
 * @example
 * ```ts
 * import type { Context, Filter } from "@gw/gateway/bot";
 * function shout(ctx: Filter<Context, "message:text">): string {
 *   return ctx.text.toUpperCase(); // ctx.text is a string here
 * }
 * ```
 */
export type Filter<C, Q extends FilterQuery> = Q extends FilterQuery ? C & FilterNarrowing[Q] : never;

/** Anything that can answer which queries its update matches (a `Context`). */
export interface HasQueries {
  /** The queries the update matches. */
  readonly update: { readonly queries: readonly FilterQuery[] };
}

const QUERY_KEYS: OptionKeys = Object.fromEntries(FILTER_QUERY_NAMES.map((name) => [name, true]));

/** Check queries now; throws `ConfigurationException` naming the valid ones for an unknown query. */
export function checkQueries(query: unknown): FilterQuery[] {
  const list = Array.isArray(query) ? query : [query];
  if (list.length === 0) {
    throw new ConfigurationException("Cannot use filter query: the list is empty", { setting: "query" });
  }
  for (const item of list) {
    if (typeof item === "string" && Object.hasOwn(FILTER_QUERIES, item)) continue;
    const guess = typeof item === "string" ? suggestKey(item, QUERY_KEYS) : undefined;
    const hint = guess === undefined ? "." : `; did you mean "${guess}"?`;
    throw new ConfigurationException(
      `Cannot use filter query "${String(item)}": it is not a query${hint} Valid queries: ${
        FILTER_QUERY_NAMES.join(", ")
      }`,
      { setting: "query" },
    );
  }
  return list as FilterQuery[];
}

/**
 * A type guard for one query or any of several; an unknown query throws `ConfigurationException` here.
 *
 * @example
 * ```ts
 * import { type Context, matchFilter } from "@gw/gateway/bot";
 * const isText = matchFilter<Context, "message:text">("message:text");
 * function echo(ctx: Context) {
 *   if (isText(ctx)) return ctx.text.trim();
 * }
 * ```
 */
export function matchFilter<C extends HasQueries, Q extends FilterQuery>(
  query: Q | readonly Q[],
): (ctx: C) => ctx is Filter<C, Q> {
  const queries = checkQueries(query);
  if (queries.length === 1) {
    const only = queries[0];
    return (ctx: C): ctx is Filter<C, Q> => ctx.update.queries.includes(only);
  }
  return (ctx: C): ctx is Filter<C, Q> => queries.some((q) => ctx.update.queries.includes(q));
}
