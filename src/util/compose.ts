/** Runs the rest of the chain; resolves when everything after the caller finished. */
export type NextFunction = () => Promise<void>;

/** One `(ctx, next)` middleware: calls `next()` at most once; not calling it ends the chain. */
export type MiddlewareFn<C> = (ctx: C, next: NextFunction) => unknown;

const DONE: NextFunction = () => Promise.resolve();

/**
 * Compose `middleware` to run in order, then its own `next`; a second `next()` call rejects, and the list
 * is copied.
 *
 * @example
 * ```ts
 * import { compose } from "./compose.ts";
 * const seen: string[] = [];
 * const chain = compose<string[]>([
 *   async (ctx, next) => {
 *     ctx.push("a");
 *     await next();
 *     ctx.push("a done");
 *   },
 *   (ctx) => void ctx.push("b"), // does not call next: the chain ends here
 * ]);
 * await chain(seen, () => Promise.resolve());
 * // seen: ["a", "b", "a done"]
 * ```
 */
export function compose<C>(
  middleware: readonly MiddlewareFn<C>[],
): (ctx: C, next?: NextFunction) => Promise<void> {
  const chain = [...middleware];
  return (ctx, last = DONE) => {
    let reached = -1;
    const step = (index: number): Promise<void> => {
      if (index <= reached) return Promise.reject(new Error("Cannot call next() twice in one middleware"));
      reached = index;
      if (index === chain.length) return last();
      try {
        return Promise.resolve(chain[index](ctx, () => step(index + 1))) as Promise<void>;
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return step(0);
  };
}
