// Not plain `async`: bench/README.md, "Where a result may be synchronous".

import { WebhookException } from "../../errors.ts";
import type { WebhookPayloadDto } from "../payload.ts";
import type { HandlerEntry } from "./registry.ts";

/**
 * Handlers or listeners failed for one webhook; `errors` holds every failure in order.
 *
 * @example
 * ```ts
 * import { WebhookProcessingException, WebhookProcessor, WebhookPayloadDto } from "@gw/gateway";
 * const processor = new WebhookProcessor().onAny(() => Promise.reject(new Error("down")));
 * const payload = WebhookPayloadDto.from({ event: "call", data: {} })!;
 * const failed = await processor.process(payload).catch((error) => error);
 * console.log((failed as WebhookProcessingException).errors.length); // 1
 * ```
 */
export class WebhookProcessingException extends WebhookException {
  /** Every failure. */
  readonly errors: readonly unknown[];

  /** Build from the failures of one webhook. */
  constructor(event: string, errors: readonly unknown[]) {
    const first = errors[0] instanceof Error ? errors[0].message : String(errors[0]);
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    super(`Cannot process webhook "${event}": ${first}${more}`, { status: 500, cause: errors[0] });
    this.errors = errors;
  }
}

/** Several failures of one observer, counted one by one in the webhook's errors. */
export class ObserverFailures extends Error {
  /** The failures. */
  readonly errors: readonly unknown[];

  constructor(errors: readonly unknown[]) {
    super("Several observer failures");
    this.errors = errors;
  }
}

/** Wait for promises; reject with {@link ObserverFailures} when any rejected. */
export async function settleAll(promises: readonly Promise<unknown>[]): Promise<void> {
  const errors: unknown[] = [];
  for (const outcome of await Promise.allSettled(promises)) {
    if (outcome.status === "rejected") errors.push(outcome.reason);
  }
  if (errors.length > 0) throw new ObserverFailures(errors);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value != null && typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * Run `entries` in order, each promise awaited before the next; then a {@link WebhookProcessingException}
 * lists the failures. Undefined when all finished at once.
 */
export function dispatchWebhook(
  entries: readonly HandlerEntry[],
  payload: WebhookPayloadDto,
): Promise<void> | undefined {
  let errors: unknown[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    try {
      const result = entries[i].run(payload);
      if (isThenable(result)) return continueAfter(entries, i, result, payload, errors);
    } catch (error) {
      (errors ??= []).push(error);
    }
  }
  if (errors !== undefined) throw new WebhookProcessingException(payload.event, errors);
  return undefined;
}

async function continueAfter(
  entries: readonly HandlerEntry[],
  index: number,
  first: PromiseLike<unknown>,
  payload: WebhookPayloadDto,
  errors: unknown[] | undefined,
): Promise<void> {
  try {
    await first;
  } catch (error) {
    (errors ??= []).push(error);
  }
  for (let i = index + 1; i < entries.length; i++) {
    try {
      const result = entries[i].run(payload);
      if (isThenable(result)) await result;
    } catch (error) {
      (errors ??= []).push(error);
    }
  }
  if (errors !== undefined) throw new WebhookProcessingException(payload.event, errors);
}
