import { WebhookPayloadDto } from "../webhooks/payload.ts";
import { type Arrival, Arrivals } from "./arrivals.ts";

/** An event as read at its arrival, and the line it waits in (none: it is not ordered). */
export interface InboundRead<T> {
  /** What the handlers will see. */
  readonly value: T;
  /** The line the event waits in, if any. */
  readonly line?: string;
}

/** A place in a line. */
export interface LinePlace {
  /** Give the place up (idempotent). */
  release(): void;
}

/**
 * The processor's `lines` option: each event is read once when it arrives, then placed in its line in arrival
 * order, even when reading one needed the store. Handlers find both with `processor.placed(payload)`; the
 * place is given up when the processing ends.
 *
 * @example Each chat's events read as their text, in a line per chat
 * ```ts
 * import { type InboundLines, WebhookProcessor } from "@gw/gateway/webhooks";
 * const lines: InboundLines<string | undefined> = {
 *   read: (payload) => ({ value: payload.text, line: payload.chatJid }),
 *   arrive: (read) => ({ release: () => console.log("done in", read.line) }),
 * };
 * const processor = new WebhookProcessor({ lines });
 * processor.on("messages.upsert", async (p) => console.log((await processor.placed(p)).value));
 * ```
 */
export interface InboundLines<T = unknown> {
  /** Read `payload` once, at its arrival (a promise only when the store must be asked). */
  read: (payload: WebhookPayloadDto) => InboundRead<T> | Promise<InboundRead<T>>;
  /** A place in `read.line` (called in arrival order, synchronously). */
  arrive(read: InboundRead<T>): LinePlace;
}

/** An event read at its arrival, with its place (none without a line). */
export interface Placed<T> {
  /** The event as read at its arrival. */
  readonly value: T;
  /** Its place in its line. */
  readonly place: LinePlace | undefined;
}

/**
 * One event's arrival: its number, reading, place and start. Internal. Processing starts in arrival order
 * too: else a redelivery that overtook its first delivery took the claim, and ran behind later updates.
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
  // The placing once done (read and in its line): its place is given up at the end without a promise.
  #done: Placed<T> | undefined;

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
    placed.catch(ignore); // its processing awaits it and fails with it
    this.placed = placed;
  }

  // Placed at once when it can (see `process`).
  #put(read: InboundRead<T>): Placed<T> | Promise<Placed<T>> {
    if (read.line === undefined) {
      this.#arrivals.drop(this.#number);
      return this.#done = { value: read.value, place: undefined };
    }
    return this.#arrivals.place(
      this.#number,
      () => this.#done = { value: read.value, place: this.#lines.arrive(read) },
    );
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#started) this.#starts.drop(this.#start);
    const placed = this.placed;
    if (placed === undefined) this.#arrivals.drop(this.#number);
    else if (this.#done !== undefined) this.#done.place?.release();
    else if (placed instanceof Promise) placed.then((p) => p.place?.release(), ignore);
    else placed.place?.release();
  }
}

function ignore(): void {}

/** The arrivals of one processor with lines: each processing keeps its arrival until it ends. Internal. */
export class ArrivalBook<T> {
  readonly #arrivals = new Arrivals();
  readonly #starts = new Arrivals();
  readonly #lines: InboundLines<T>;
  readonly #processing = new Map<WebhookPayloadDto, LineArrival<T>>();

  constructor(lines: InboundLines<T>) {
    this.#lines = lines;
  }

  /** An event arriving now (its number is taken here). */
  arrive(): LineArrival<T> {
    return new LineArrival(this.#arrivals, this.#starts, this.#lines);
  }

  /** `payload`'s reading and place while it is processed (read now when it has no arrival). */
  placed(payload: WebhookPayloadDto): Promise<Placed<T>> {
    // Not `async`: the bot reads every update's place here, and an async frame per call is garbage.
    const arrival = this.#processing.get(payload);
    if (arrival !== undefined) return Promise.resolve(arrival.placed!);
    return this.#readUnplaced(payload);
  }

  async #readUnplaced(payload: WebhookPayloadDto): Promise<Placed<T>> {
    return { value: (await this.#lines.read(payload)).value, place: undefined };
  }

  /**
   * Run `process` for `given` with its arrival (taken now when none); undefined when it all ran at once (why:
   * bench/README.md, "Where a result may be synchronous").
   */
  process(
    given: WebhookPayloadDto,
    arrival: Arrival<WebhookPayloadDto> | undefined,
    process: (payload: WebhookPayloadDto) => Promise<void> | undefined,
  ): Promise<void> | undefined {
    // Arrivals are keyed by payload object: one processed twice at once runs as a copy, with its own place.
    const payload = this.#processing.has(given) ? copyOf(given) : given;
    const mine = arrival instanceof LineArrival ? arrival as LineArrival<T> : this.arrive();
    mine.taken = true;
    const end = () => {
      this.#processing.delete(payload);
      mine.end();
    };
    let started: Promise<void> | undefined | Promise<Promise<void> | undefined>;
    try {
      mine.place(payload);
      this.#processing.set(payload, mine);
      started = mine.start(() => process(payload));
    } catch (error) {
      end();
      throw error;
    }
    if (!(started instanceof Promise)) return void end(); // done at once
    // A later start resolves with the processing's own promise, so it settles when that does.
    return started.then(end, (error) => {
      end();
      throw error;
    });
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
