import { ConfigurationException } from "../errors.ts";

import type { MiddlewareFn, NextFunction } from "../util/compose.ts";

// The library's one middleware shape (`src/util/compose.ts`), under the names grammY users know.
export type { MiddlewareFn, NextFunction };

/** An object that provides a middleware function (a `Composer`, a plugin). */
export interface MiddlewareObj<C> {
  /** The middleware function this object stands for. */
  middleware(): MiddlewareFn<C>;
}

/** A middleware function or an object providing one. */
export type Middleware<C> = MiddlewareFn<C> | MiddlewareObj<C>;

/** The middleware function of `middleware`; throws `ConfigurationException` for anything else. */
export function flatten<C>(middleware: Middleware<C>): MiddlewareFn<C> {
  if (typeof middleware === "function") return middleware;
  if (middleware !== null && typeof (middleware as MiddlewareObj<C>)?.middleware === "function") {
    return (middleware as MiddlewareObj<C>).middleware();
  }
  throw new ConfigurationException(
    "Cannot use middleware: expected a function (ctx, next) or an object with a middleware() method",
  );
}

/** `first`, then (when it calls `next`) `then`, then the outer `next`. Calling `next` twice throws. */
export function concat<C>(first: MiddlewareFn<C>, then: MiddlewareFn<C>): MiddlewareFn<C> {
  return async (ctx, next) => {
    let called = false;
    await first(ctx, async () => {
      if (called) throw new Error("Cannot call next() twice in one middleware");
      called = true;
      await then(ctx, next);
    });
  };
}

/** Middleware that only calls `next`. */
export function pass<C>(_ctx: C, next: NextFunction): Promise<void> {
  return next();
}

/** A `next` that runs `then` when first called; a second call rejects. */
export function nextOnce(then: () => Promise<void>): NextFunction {
  let called = false;
  return () => {
    if (called) return Promise.reject(new Error("Cannot call next() twice in one middleware"));
    called = true;
    return then();
  };
}

const DONE = (): Promise<void> => Promise.resolve();

/** Run `middleware` on `ctx` with nothing after it (its `next` too may be called once only). */
export function run<C>(middleware: MiddlewareFn<C>, ctx: C): Promise<void> {
  // What `concat(middleware, pass)` would run, without its layers: once per update, on the bot's hot path.
  try {
    return Promise.resolve(middleware(ctx, nextOnce(DONE))) as Promise<void>; // its value is not read
  } catch (error) {
    return Promise.reject(error);
  }
}
