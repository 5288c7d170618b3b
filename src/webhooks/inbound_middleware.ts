import { WebhookException } from "../errors.ts";
import { compose, type MiddlewareFn } from "../util/compose.ts";
import { ObserverFailures, WebhookProcessingException } from "./events/dispatch.ts";
import type { WebhookEventSpelling } from "./events/names.ts";
import { normalizeKinds } from "./handler_base.ts";
import type { WebhookPayloadDto } from "./payload.ts";

/** One update on its way to the handlers; middleware may add fields of its own. */
export interface InboundContext {
  /** The update as it arrived, parsed once. */
  readonly payload: WebhookPayloadDto;
}

/**
 * Inbound middleware (`WebhookProcessor.use`), run in registration order before the handlers; not calling
 * `next()` ends the update, a throw fails it (500 in sync mode, a retry in queue mode).
 *
 * @example
 * ```ts
 * import { type InboundMiddleware, WebhookProcessor } from "@gw/gateway/webhooks";
 * const onlySales: InboundMiddleware = (ctx, next) => ctx.payload.instance === "sales" ? next() : undefined;
 * new WebhookProcessor().use(onlySales);
 * ```
 */
export type InboundMiddleware = MiddlewareFn<InboundContext>;

/** Something that observes updates beside the handlers (the store features, the `events`). Internal. */
export interface Observer {
  /** The events it observes, in any spelling; absent or empty: every update. */
  readonly events?: readonly WebhookEventSpelling[];
  /** Observe one update; a promise runs beside the rest of the chain. */
  observe(payload: WebhookPayloadDto): unknown;
}

/** Refuse what is not middleware, before anything runs. */
export function checkMiddleware(middleware: unknown): asserts middleware is InboundMiddleware {
  if (typeof middleware !== "function") {
    throw new WebhookException("Cannot use inbound middleware: expected a function (ctx, next)");
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value != null && typeof (value as PromiseLike<unknown>).then === "function";
}

function failuresOf(outcome: PromiseSettledResult<unknown>): readonly unknown[] {
  if (outcome.status === "fulfilled") return [];
  const reason = outcome.reason;
  if (reason instanceof WebhookProcessingException || reason instanceof ObserverFailures) {
    return reason.errors;
  }
  return [reason];
}

// Beside the chain, not holding the handlers up; both settle before the update is done.
async function beside(event: string, own: PromiseLike<unknown>, rest: Promise<void>): Promise<void> {
  const [after, mine] = await Promise.allSettled([rest, own]);
  const errors = [...failuresOf(after), ...failuresOf(mine)];
  if (errors.length > 0) throw new WebhookProcessingException(event, errors);
}

/** An observer as middleware: its failure fails the update once the rest settled. */
export function observerStage(observer: Observer): InboundMiddleware {
  const kinds = normalizeKinds(observer.events ?? []);
  return (ctx, next) => {
    if (kinds.length > 0 && !kinds.includes(ctx.payload.event)) return next();
    let seen: unknown;
    try {
      seen = observer.observe(ctx.payload);
    } catch (error) {
      seen = Promise.reject(error);
    }
    return isThenable(seen) ? beside(ctx.payload.event, seen, next()) : next();
  };
}

/** The handlers' step: undefined when they all finished at once (the receiver's fast path), else a promise. */
type Handle = (payload: WebhookPayloadDto) => Promise<void> | undefined;

/** Observers (they see every update), then the application's middleware, then the handlers. Internal. */
export class InboundChain {
  readonly #observers: InboundMiddleware[] = [];
  readonly #middleware: InboundMiddleware[] = [];
  readonly #handle: Handle;
  // Undefined without middleware: the handlers then run without a promise.
  #chain: ((ctx: InboundContext) => Promise<void>) | undefined;

  constructor(handle: Handle) {
    this.#handle = handle;
  }

  /** Add the application's middleware. */
  use(middleware: readonly InboundMiddleware[]): void {
    for (const fn of middleware) checkMiddleware(fn);
    this.#middleware.push(...middleware);
    this.#compose();
  }

  /** Add an observer, before every middleware. */
  observe(observer: Observer): void {
    this.#observers.push(observerStage(observer));
    this.#compose();
  }

  /** Run `payload` through the chain; undefined when it all finished at once. */
  run(payload: WebhookPayloadDto): Promise<void> | undefined {
    const chain = this.#chain;
    if (chain === undefined) return this.#handle(payload);
    return chain({ payload }).catch((error) => {
      throw error instanceof WebhookProcessingException
        ? error
        : new WebhookProcessingException(payload.event, [error]);
    });
  }

  #compose(): void {
    const handle = this.#handle;
    const last: InboundMiddleware = (ctx) => handle(ctx.payload);
    this.#chain = compose([...this.#observers, ...this.#middleware, last]);
  }
}
