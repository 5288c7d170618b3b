/**
 * The arrival step's hook: lines an event waits in, given to a `WebhookProcessor` (its `lines` option). Each
 * event is read once when it arrives (`read`: what the handlers will see, and the line it waits in), then
 * placed in its line in arrival order (`arrive`, called synchronously, in the order the events arrived, even
 * when reading one needed the store). A handler finds the event's reading and place with
 * `processor.placed(payload)`; the place is given up when the processing ends.
 *
 * @module
 */

import { WebhookPayloadDto } from "../webhooks/payload.ts";
import { type Arrival, Arrivals } from "./arrivals.ts";

/**
 * An event as read at its arrival, and the line it waits in (none: it is not ordered).
 *
 * @example
 * ```ts
 * import type { InboundRead } from "@gw/gateway/webhooks";
 * const read: InboundRead<string> = { value: "hi", line: "sales/5511999999999@s.whatsapp.net" };
 * ```
 */
export interface InboundRead<T> {
  /** What the handlers will see. */
  readonly value: T;
  /** The line the event waits in, if any. */
  readonly line?: string;
}

/**
 * A place in a line.
 *
 * @example
 * ```ts
 * import type { LinePlace } from "@gw/gateway/webhooks";
 * const place: LinePlace = { release: () => {} };
 * place.release();
 * ```
 */
export interface LinePlace {
  /** Give the place up (idempotent; the line's own turn logic decides what that means once entered). */
  release(): void;
}

/**
 * The lines events wait in (the processor's `lines` option): how an event reads, and a place in a line.
 *
 * @example Each chat's events read as their text, in a line per chat
 * ```ts
 * import { type InboundLines, WebhookProcessor } from "@gw/gateway/webhooks";
 * const waiting = new Map<string, number>(); // how many events of each chat are being processed
 * const lines: InboundLines<string | undefined> = {
 *   read: (payload) => ({ value: payload.text, line: payload.chatJid }),
 *   arrive: (read) => {
 *     const chat = read.line!;
 *     waiting.set(chat, (waiting.get(chat) ?? 0) + 1);
 *     return { release: () => void waiting.set(chat, waiting.get(chat)! - 1) };
 *   },
 * };
 * const processor = new WebhookProcessor({ lines });
 * processor.on("messages.upsert", async (payload) => {
 *   const placed = await processor.placed<string | undefined>(payload);
 *   console.log(placed.value, waiting.get(payload.chatJid!));
 * });
 * ```
 */
export interface InboundLines<T = unknown> {
  /** Read `payload` once, at its arrival (a promise only when the store must be asked). */
  read: (payload: WebhookPayloadDto) => InboundRead<T> | Promise<InboundRead<T>>;
  /** A place in `read.line` (called in arrival order, synchronously). */
  arrive(read: InboundRead<T>): LinePlace;
}

/**
 * An event read at its arrival, with its place (none without a line).
 *
 * @example
 * ```ts
 * import type { Placed } from "@gw/gateway/webhooks";
 * const placed: Placed<string> = { value: "hi", place: undefined };
 * ```
 */
export interface Placed<T> {
  /** The event as read at its arrival. */
  readonly value: T;
  /** Its place in its line. */
  readonly place: LinePlace | undefined;
}

/**
 * One event's arrival: its number, then its reading and place, and the start of its processing. Internal.
 *
 * Processing starts in arrival order too (`start`), not only placing: it claims the update at once, and two
 * deliveries of one message take their claim in the order they arrived. Without it a redelivery that passed
 * its first delivery on the way in (a slower signature check or log write) took the claim, and the message
 * ran at the redelivery's place in its chat, behind updates that arrived after it.
 */
export class LineArrival<T> implements Arrival<WebhookPayloadDto> {
  taken = false;
  placed: Placed<T> | Promise<Placed<T>> | undefined;
  readonly #number: number;
  readonly #arrivals: Arrivals;
  readonly #starts: Arrivals;
  readonly #start: number;
  readonly #lines: InboundLines<T>;
  #started = false;
  #ended = false;

  constructor(arrivals: Arrivals, starts: Arrivals, lines: InboundLines<T>) {
    this.#arrivals = arrivals;
    this.#starts = starts;
    this.#lines = lines;
    this.#number = arrivals.take();
    this.#start = starts.take();
  }

  /** Run `process` once every earlier arrival started or ended; at once when it can (see `process`). */
  start<R>(process: () => R): R | Promise<R> {
    this.#started = true;
    return this.#starts.place(this.#start, process);
  }

  place(payload: WebhookPayloadDto): void {
    if (this.placed !== undefined || this.#ended) return;
    let read: InboundRead<T> | Promise<InboundRead<T>>;
    try {
      read = this.#lines.read(payload);
    } catch (error) {
      this.#arrivals.drop(this.#number);
      throw error;
    }
    if (!(read instanceof Promise)) {
      this.placed = this.#put(read);
      return;
    }
    const placed = read.then((value) => this.#put(value), (error) => {
      this.#arrivals.drop(this.#number);
      throw error;
    });
    placed.catch(() => {}); // its processing awaits it and fails with it
    this.placed = placed;
  }

  // Placed at once when it can (see `process`).
  #put(read: InboundRead<T>): Placed<T> | Promise<Placed<T>> {
    if (read.line === undefined) {
      this.#arrivals.drop(this.#number);
      return { value: read.value, place: undefined };
    }
    return this.#arrivals.place(this.#number, () => ({ value: read.value, place: this.#lines.arrive(read) }));
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#started) this.#starts.drop(this.#start);
    const placed = this.placed;
    if (placed === undefined) this.#arrivals.drop(this.#number);
    else if (placed instanceof Promise) placed.then((p) => p.place?.release(), () => {});
    else placed.place?.release();
  }
}

/** The arrivals of one processor with lines: each processing keeps its arrival until it ends. Internal. */
export class ArrivalBook<T> {
  readonly #arrivals = new Arrivals();
  readonly #starts = new Arrivals();
  readonly #lines: InboundLines<T>;
  // The arrivals of the payloads being processed, each entry removed when its processing ends.
  readonly #processing = new Map<WebhookPayloadDto, LineArrival<T>>();

  constructor(lines: InboundLines<T>) {
    this.#lines = lines;
  }

  /** An event arriving now: its number is taken here. */
  arrive(): LineArrival<T> {
    return new LineArrival(this.#arrivals, this.#starts, this.#lines);
  }

  /** `payload`'s reading and place while it is processed (read now when processed around the arrival step). */
  async placed(payload: WebhookPayloadDto): Promise<Placed<T>> {
    const arrival = this.#processing.get(payload);
    if (arrival !== undefined) return await arrival.placed!;
    return { value: (await this.#lines.read(payload)).value, place: undefined };
  }

  /**
   * Run `process` for `given` with its arrival (taken now when none): placed first, started in arrival
   * order, ended after. Undefined when it all ran at once, as the processor's dispatch; why not plain
   * `async`: bench/README.md, "Where a result may be synchronous".
   */
  process(
    given: WebhookPayloadDto,
    arrival: Arrival<WebhookPayloadDto> | undefined,
    process: (payload: WebhookPayloadDto) => Promise<void> | undefined,
  ): Promise<void> | undefined {
    // An arrival is found by its payload object, so one object processed twice at once is processed the
    // second time as a copy: each processing keeps its own place.
    const payload = this.#processing.has(given) ? copyOf(given) : given;
    const mine = arrival instanceof LineArrival ? arrival as LineArrival<T> : this.arrive();
    mine.taken = true;
    const end = () => {
      this.#processing.delete(payload);
      mine.end();
    };
    let pending: Promise<void> | undefined;
    try {
      mine.place(payload);
      this.#processing.set(payload, mine);
      const started = mine.start(() => process(payload));
      // A later start resolves with the processing's own promise, so it settles when that does.
      pending = started instanceof Promise ? started.then(() => {}) : started;
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
