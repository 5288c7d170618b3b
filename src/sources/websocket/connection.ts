/**
 * One instance's socket.io connection: connect to the server's `/<instance>` namespace with the api key in
 * a header, pass every event on, and when the connection drops reconnect with doubling waits (a fresh
 * socket per attempt, socket.io-client's own reconnection off so that the waits are the source's), saying
 * so once when it is lost and once when it is back.
 *
 * @module
 */

import { classifyConnectError, type ConnectFailure } from "./connect_error.ts";
import type { WebSocketSettings } from "./options.ts";

/** The part of socket.io-client's `Socket` the source uses. Internal. */
export interface SocketLike {
  on(event: string, listener: (...args: never[]) => void): unknown;
  once(event: string, listener: (...args: never[]) => void): unknown;
  onAny(listener: (event: string, ...args: unknown[]) => void): unknown;
  close(): unknown;
}

/** socket.io-client's `io`, as the source calls it. Internal. */
export type SocketFactory = (url: string, options: Record<string, unknown>) => SocketLike;

/** What the connection reports to its consumer. Internal. */
export interface ConnectionHooks {
  /** One event from the server, as received. */
  event(name: string, body: unknown): void;
  /** Connected again after a loss (not the first connect). */
  reconnected(): void;
  /** Stopped for good (a refused key, socket.io off). */
  fatal(error: Error): void;
}

/** One instance's connection. Internal. */
export class InstanceConnection {
  readonly #io: SocketFactory;
  readonly #settings: WebSocketSettings;
  readonly #instance: string;
  readonly #hooks: ConnectionHooks;
  readonly #stop: AbortSignal;
  #socket: SocketLike | undefined;
  #waited = false;

  constructor(
    io: SocketFactory,
    settings: WebSocketSettings,
    instance: string,
    hooks: ConnectionHooks,
    stop: AbortSignal,
  ) {
    this.#io = io;
    this.#settings = settings;
    this.#instance = instance;
    this.#hooks = hooks;
    this.#stop = stop;
    stop.addEventListener("abort", () => this.#socket?.close(), { once: true });
  }

  /** Connect for the first time: waits while the namespace is not open yet, rejects on any other failure. */
  async start(): Promise<void> {
    for (let attempt = 0;; attempt++) {
      const failure = await this.#attempt();
      if (failure === undefined) return;
      if (failure.kind !== "namespace") throw failure.error;
      if (!this.#waited) {
        this.#waited = true;
        this.#say(`${failure.error.message}; waiting for it`);
      }
      if (!await this.#wait(attempt)) return;
    }
  }

  #where() {
    return { address: this.#settings.address, instance: this.#instance, apiKey: this.#settings.apiKey };
  }

  #say(line: string): void {
    this.#settings.log(`[gateway] WebSocketSource: ${line}`);
  }

  /** True after the wait, false when the consumer stopped meanwhile. */
  async #wait(attempt: number): Promise<boolean> {
    const { initialMs, maxMs } = this.#settings;
    try {
      await this.#settings.sleep(Math.min(initialMs * 2 ** Math.min(attempt, 30), maxMs), this.#stop);
    } catch {
      // Aborted: the consumer is closing.
    }
    return !this.#stop.aborted;
  }

  /** One connect attempt: undefined when connected, else why not. */
  #attempt(): Promise<ConnectFailure | undefined> {
    if (this.#stop.aborted) return Promise.resolve(undefined);
    const socket = this.#io(`${this.#settings.origin}/${this.#instance}`, {
      transports: ["websocket"],
      forceNew: true,
      reconnection: false,
      timeout: this.#settings.connectTimeoutMs,
      extraHeaders: { apikey: this.#settings.apiKey },
    });
    this.#socket = socket;
    socket.onAny((name, body) => this.#hooks.event(name, body));
    return new Promise((resolve) => {
      socket.once("connect", () => {
        socket.on("disconnect", (reason: string) => this.#lost(socket, reason));
        resolve(undefined);
      });
      socket.once("connect_error", (error: unknown) => {
        socket.close();
        resolve(classifyConnectError(error, this.#where()));
      });
    });
  }

  #lost(socket: SocketLike, reason: string): void {
    if (this.#stop.aborted || socket !== this.#socket) return;
    socket.close();
    this.#say(
      `lost "/${this.#instance}" at "${this.#settings.address}" (${reason}); reconnecting with backoff ` +
        `(${this.#settings.initialMs} ms doubling up to ${this.#settings.maxMs} ms)`,
    );
    this.#reconnect().catch((error) => this.#hooks.fatal(error));
  }

  async #reconnect(): Promise<void> {
    for (let attempt = 0;; attempt++) {
      if (!await this.#wait(attempt)) return;
      const failure = await this.#attempt();
      if (this.#stop.aborted) return;
      if (failure === undefined) break;
      if (failure.kind === "refused" || failure.kind === "disabled") {
        this.#say(`stopped "/${this.#instance}": ${failure.error.message}`);
        this.#hooks.fatal(failure.error);
        return;
      }
    }
    this.#say(`reconnected "/${this.#instance}" at "${this.#settings.address}"`);
    this.#hooks.reconnected();
  }
}
