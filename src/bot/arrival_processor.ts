/**
 * The bot's processor: each payload takes its place in its chat's line when it arrives, before the claim
 * and the other asynchronous steps, so that one chat's updates get their turns in arrival order.
 *
 * @module
 */

import { WebhookPayloadDto } from "../webhooks/payload.ts";
import { PROCESS, WebhookProcessor, type WebhookProcessorOptions } from "../webhooks/processor.ts";
import type { ArrivalSlot } from "./chat_order.ts";

/** A processor that notes each payload's arrival (`arrive`) before processing it, and frees it after. */
export class ArrivalProcessor extends WebhookProcessor {
  readonly #arrive: (payload: WebhookPayloadDto) => ArrivalSlot | undefined;
  // The slots of the payloads being processed, each entry removed when its processing ends (so a plain Map:
  // nothing is left for the collector to find).
  readonly #slots = new Map<WebhookPayloadDto, ArrivalSlot>();

  constructor(
    options: WebhookProcessorOptions,
    arrive: (payload: WebhookPayloadDto) => ArrivalSlot | undefined,
  ) {
    super(options);
    this.#arrive = arrive;
  }

  /** The place `payload` took in its chat's line when it arrived (while it is being processed). */
  slotOf(payload: WebhookPayloadDto): ArrivalSlot | undefined {
    return this.#slots.get(payload);
  }

  override [PROCESS](given: WebhookPayloadDto): Promise<void> | undefined {
    // A slot is found by its payload object, so one object processed twice at once (`handleUpdate(p)` run
    // twice concurrently) is processed the second time as a copy: each processing keeps its own place.
    const payload = this.#slots.has(given) ? copyOf(given) : given;
    const slot = this.#arrive(payload);
    if (slot === undefined) return super[PROCESS](payload);
    const slots = this.#slots;
    slots.set(payload, slot);
    const end = () => {
      slots.delete(payload);
      slot.release();
    };
    let pending: Promise<void> | undefined;
    try {
      pending = super[PROCESS](payload);
    } finally {
      if (pending === undefined) end(); // done at once, or threw
    }
    return pending?.finally(end);
  }
}

function copyOf(payload: WebhookPayloadDto): WebhookPayloadDto {
  return new WebhookPayloadDto(payload.raw as Record<string, unknown>, payload.event, {
    event: payload.rawEvent,
    instance: payload.instance,
    deliveryId: payload.deliveryId,
    receivedAt: payload.receivedAt,
  });
}
