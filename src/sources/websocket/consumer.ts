import { reconcileInboundMessages, type ReconcileInboundService } from "../../delivery/reconcile.ts";
import { errorMessage } from "../../util/error_message.ts";
import { normalizeWebhookEvent } from "../../webhooks/events/names.ts";
import type { WebhookProcessor } from "../../webhooks/processor.ts";
import { deliverTo, type SourceTarget } from "../target.ts";
import { InstanceConnection, type SocketFactory } from "./connection.ts";
import type { WebSocketSettings } from "./options.ts";

/** What the consumer needs to reconcile on reconnect. Internal. */
export interface ReconcileWith {
  service: ReconcileInboundService;
  processor: WebhookProcessor;
}

/**
 * A running consumer of the server's socket.io events, from `WebSocketSource.consume`.
 *
 * @example
 * ```ts
 * import type { WebSocketConsumer } from "@gw/gateway/websocket";
 * async function stop(consumer: WebSocketConsumer): Promise<void> {
 *   await consumer.ready; // rejects when the first connect failed (api key refused, server unreachable)
 *   await consumer.close();
 * }
 * ```
 */
export class WebSocketConsumer {
  /** Settles when every instance connected once; rejects with the first connect's error (and closes). */
  readonly ready: Promise<void>;
  /** Settles when the consumer stops: after `close()`, or rejected with the error that stopped it. */
  readonly closed: Promise<void>;
  readonly #settings: WebSocketSettings;
  readonly #deliver: ReturnType<typeof deliverTo>;
  readonly #reconcile: ReconcileWith | undefined;
  readonly #stop = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  #reconciling: Promise<void> = Promise.resolve();
  #connections: InstanceConnection[] = [];
  #settle!: (error?: Error) => void;

  /** Start consuming (done by `WebSocketSource.consume`). Internal: use `source.consume(target)`. */
  constructor(
    settings: WebSocketSettings,
    target: SourceTarget,
    reconcile: ReconcileWith | undefined,
    io: Promise<SocketFactory>,
  ) {
    this.#settings = settings;
    this.#deliver = deliverTo(target);
    this.#reconcile = reconcile;
    this.closed = new Promise<void>((resolve, reject) => {
      this.#settle = (error) => error === undefined ? resolve() : reject(error);
    });
    this.closed.catch(() => {});
    this.ready = this.#start(io);
    this.ready.catch(() => {});
  }

  async #start(io: Promise<SocketFactory>): Promise<void> {
    try {
      const factory = await io;
      const connections = this.#connections = this.#settings.instances.map((instance) =>
        new InstanceConnection(factory, this.#settings, instance, {
          event: (name, body) => this.#event(instance, name, body),
          reconnected: () => this.#reconnected(instance),
          fatal: (error) => this.#fatal(error),
        }, this.#stop.signal)
      );
      await Promise.all(connections.map((connection) => connection.start()));
    } catch (error) {
      await this.#fatal(error as Error);
      throw error;
    }
  }

  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    const done = () => void this.#inFlight.delete(work);
    work.then(done, done);
  }

  #event(instance: string, name: string, body: unknown): void {
    if (this.#stop.signal.aborted) return;
    const kind = normalizeWebhookEvent(String(name));
    if (kind === null || !this.#settings.kinds.has(kind)) return;
    // Handed over as it arrives (no await before it), so the processor places it in its chat's line in the
    // order the server sent it.
    this.#track(
      this.#deliver({ body, receivedAt: this.#settings.now() }).catch((error) => {
        this.#settings.log(
          `[gateway] WebSocketSource: a "${name}" event of "${instance}" failed and is not redelivered ` +
            `(socket.io is at most once): ${errorMessage(error)}`,
        );
      }),
    );
  }

  #reconnected(instance: string): void {
    const with_ = this.#reconcile;
    if (with_ === undefined) return;
    // One run per reconnect, one at a time per consumer (the reconciler's progress is per chat).
    this.#reconciling = this.#reconciling.then(() => this.#reconcileOnce(instance, with_));
    this.#track(this.#reconciling);
  }

  async #reconcileOnce(instance: string, with_: ReconcileWith): Promise<void> {
    if (this.#stop.signal.aborted) return;
    try {
      const result = await reconcileInboundMessages(with_.service, {
        processor: with_.processor,
        store: with_.processor.store ?? with_.service.getStore(),
        instances: [instance],
        signal: this.#stop.signal,
        now: this.#settings.now,
      });
      const errors = result.instances.flatMap((one) => one.errors);
      this.#settings.log(
        `[gateway] WebSocketSource: reconciled "${instance}" after the reconnect: ${result.recovered} ` +
          `missed message(s) handled, ${result.seen} checked` +
          (errors.length > 0 ? `, ${errors.length} chat(s) failed (${errors[0].error})` : ""),
      );
    } catch (error) {
      if (this.#stop.signal.aborted) return;
      this.#settings.log(
        `[gateway] WebSocketSource: reconciling "${instance}" after the reconnect failed: ${
          errorMessage(error)
        }`,
      );
    }
  }

  async #fatal(error: Error): Promise<void> {
    await this.#shutdown();
    this.#settle(error);
  }

  async #shutdown(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#connections.map((connection) => connection.closed()));
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Disconnect every instance and wait for the events handed over (and a reconcile under way) to finish. */
  async close(): Promise<void> {
    await this.#shutdown();
    this.#settle();
  }
}
