/**
 * The bot's processor: each payload takes its place in its chat's line when it arrives, before the claim
 * and the other asynchronous steps, so that one chat's updates get their turns in arrival order.
 *
 * @module
 */

import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import { PROCESS, WebhookProcessor, type WebhookProcessorOptions } from "../webhooks/processor.ts";
import type { ArrivalSlot } from "./chat_order.ts";

/** A processor that notes each payload's arrival (`arrive`) before processing it, and frees it after. */
export class ArrivalProcessor extends WebhookProcessor {
  readonly #arrive: (payload: WebhookPayloadDto) => ArrivalSlot | undefined;

  constructor(
    options: WebhookProcessorOptions,
    arrive: (payload: WebhookPayloadDto) => ArrivalSlot | undefined,
  ) {
    super(options);
    this.#arrive = arrive;
  }

  override [PROCESS](payload: WebhookPayloadDto): Promise<void> | undefined {
    const slot = this.#arrive(payload);
    if (slot === undefined) return super[PROCESS](payload);
    let pending: Promise<void> | undefined;
    try {
      pending = super[PROCESS](payload);
    } finally {
      if (pending === undefined) slot.release(); // done at once, or threw
    }
    return pending?.finally(slot.release);
  }
}
