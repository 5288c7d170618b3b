/**
 * The bot's processor: every update takes its place in its chat's line when it arrives (a webhook when its
 * body is in, `process`/`handleUpdate` when called), under the chat's canonical id, before any store
 * operation of its own; the bot's handler finds the update (read once, here) and its place.
 *
 * @module
 */

import { type Arrival, Arrivals } from "../inbound/arrivals.ts";
import { WebhookPayloadDto } from "../webhooks/payload.ts";
import { PROCESS, WebhookProcessor, type WebhookProcessorOptions } from "../webhooks/processor.ts";
import { ARRIVE } from "../webhooks/processor.ts";
import type { ArrivalSlot } from "./chat_order.ts";
import type { BotUpdate } from "./update_types.ts";

/** An update read at its arrival, and its place in its chat's line (none without a chat). */
export interface Placed {
  readonly update: BotUpdate;
  readonly slot: ArrivalSlot | undefined;
}

/** What the bot tells the processor: how a payload reads, and where a chat's line takes a place. */
export interface ArrivalLines {
  /** The update of `payload`, with its chat's canonical id (a promise when the store must be asked). */
  read(payload: WebhookPayloadDto): BotUpdate | Promise<BotUpdate>;
  /** A place in the line of `chat` (synchronous: called in arrival order). */
  arrive(instance: string, chat: string): ArrivalSlot;
}

/** One update's arrival: its number, then its update and place. */
class ChatArrival implements Arrival<WebhookPayloadDto> {
  taken = false;
  placed: Placed | Promise<Placed> | undefined;
  readonly #number: number;
  readonly #arrivals: Arrivals;
  readonly #lines: ArrivalLines;
  #ended = false;

  constructor(arrivals: Arrivals, lines: ArrivalLines) {
    this.#arrivals = arrivals;
    this.#lines = lines;
    this.#number = arrivals.take();
  }

  place(payload: WebhookPayloadDto): void {
    if (this.placed !== undefined || this.#ended) return;
    let update: BotUpdate | Promise<BotUpdate>;
    try {
      update = this.#lines.read(payload);
    } catch (error) {
      this.#arrivals.drop(this.#number);
      throw error;
    }
    if (!(update instanceof Promise)) {
      this.placed = this.#put(update);
      return;
    }
    const placed = update.then((read) => this.#put(read), (error) => {
      this.#arrivals.drop(this.#number);
      throw error;
    });
    placed.catch(() => {}); // its processing awaits it and fails with it
    this.placed = placed;
  }

  #put(update: BotUpdate): Placed | Promise<Placed> {
    const chat = update.chat?.id;
    if (chat === undefined) {
      this.#arrivals.drop(this.#number);
      return { update, slot: undefined };
    }
    return this.#arrivals.place(this.#number, () => ({
      update,
      slot: this.#lines.arrive(update.instance, chat),
    }));
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const placed = this.placed;
    if (placed === undefined) this.#arrivals.drop(this.#number);
    else if (placed instanceof Promise) placed.then((p) => p.slot?.release(), () => {});
    else placed.slot?.release();
  }
}

/** A processor whose updates take their place in their chat's line when they arrive. */
export class ArrivalProcessor extends WebhookProcessor {
  readonly #arrivals = new Arrivals();
  readonly #lines: ArrivalLines;
  // The arrivals of the payloads being processed, each entry removed when its processing ends (a plain
  // Map: nothing is left for the collector to find).
  readonly #processing = new Map<WebhookPayloadDto, ChatArrival>();

  constructor(options: WebhookProcessorOptions, lines: ArrivalLines) {
    super(options);
    this.#lines = lines;
  }

  override [ARRIVE](): ChatArrival {
    return new ChatArrival(this.#arrivals, this.#lines);
  }

  /** The update and place of `payload` (while it is being processed). */
  placed(payload: WebhookPayloadDto): Placed | Promise<Placed> {
    const arrival = this.#processing.get(payload);
    if (arrival !== undefined) return arrival.placed!;
    // Processed around the arrival step (the reconciler): read now, placed when its turn is asked for.
    const read = this.#lines.read(payload);
    return read instanceof Promise
      ? read.then((update) => ({ update, slot: undefined }))
      : { update: read, slot: undefined };
  }

  override [PROCESS](
    given: WebhookPayloadDto,
    arrival?: Arrival<WebhookPayloadDto>,
  ): Promise<void> | undefined {
    // An arrival is found by its payload object, so one object processed twice at once (`handleUpdate(p)`
    // run twice concurrently) is processed the second time as a copy: each processing keeps its own place.
    const payload = this.#processing.has(given) ? copyOf(given) : given;
    const mine = arrival instanceof ChatArrival ? arrival : this[ARRIVE]();
    mine.taken = true;
    const processing = this.#processing;
    const end = () => {
      processing.delete(payload);
      mine.end();
    };
    let pending: Promise<void> | undefined;
    try {
      mine.place(payload);
      processing.set(payload, mine);
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
