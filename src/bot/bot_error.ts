/**
 * An error thrown by middleware, with the update's context, for `bot.catch` and `errorBoundary` handlers.
 * A `bot.catch` handler that returns makes the update handled; one that throws has the server retry it.
 *
 * @example
 * ```ts
 * import { Bot } from "@gw/gateway/bot";
 * const bot = new Bot({ signature: { scheme: "none" } });
 * bot.catch((err) => {
 *   console.error(err.ctx.chat?.id, err.error);
 *   throw err; // let the server retry the update
 * });
 * ```
 */
export class BotError<C = unknown> extends Error {
  /** What the middleware threw. */
  readonly error: unknown;
  /** The context of the update being handled. */
  readonly ctx: C;

  /** Wrap `error` thrown while handling `ctx`. */
  constructor(error: unknown, ctx: C) {
    super(`Cannot handle update: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
    this.name = "BotError";
    this.error = error;
    this.ctx = ctx;
  }
}
