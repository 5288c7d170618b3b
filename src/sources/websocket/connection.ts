import { classifyConnectError, type ConnectFailure } from "./connect_error.ts";
import type { WebSocketSettings } from "./options.ts";

/** The part of socket.io-client's `Socket` the source uses. Internal. */
export interface SocketLike {
  on(event: string, listener: (...args: never[]) => void): unknown;
  once(event: string, listener: (...args: never[]) => void): unknown;
  onAny(listener: (event: string, ...args: unknown[]) => void): unknown;
  close(): unknown;
  /** The manager, down to the websocket under the transport (read to wait for its close). */
  io?: { engine?: { transport?: { ws?: ClosingWebSocket | null } } };
}

/** The node build's websocket (`ws`) under the transport. Internal. */
interface ClosingWebSocket {
  readyState: number;
  once?(event: "close", listener: () => void): unknown;
}

/**
 * Close a socket and settle when its websocket has closed: socket.io-client returns at once, while `ws`
 * keeps a timer for the closing handshake; waiting lets `close()` leave nothing running.
 */
function closeSocket(socket: SocketLike): Promise<void> {
  const ws = socket.io?.engine?.transport?.ws;
  const CLOSED = 3;
  const done = ws && typeof ws.once === "function" && ws.readyState !== CLOSED
    ? new Promise<void>((resolve) => ws.once!("close", resolve))
    : Promise.resolve();
  socket.close();
  return done;
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

/**
 * One instance's connection, reconnected with doubling waits: a fresh socket per attempt, socket.io-client's
 * own reconnection off so that the waits are the source's. Internal.
 */
export class InstanceConnection {
  readonly #io: SocketFactory;
  readonly #settings: WebSocketSettings;
  readonly #instance: string;
  readonly #hooks: ConnectionHooks;
  readonly #stop: AbortSignal;
  #socket: SocketLike | undefined;
  #waited = false;
  #closing: Promise<void> = Promise.resolve();

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
    stop.addEventListener("abort", () => {
      if (this.#socket !== undefined) this.#close(this.#socket);
    }, { once: true });
  }

  #close(socket: SocketLike): void {
    const closing = closeSocket(socket);
    this.#closing = Promise.all([this.#closing, closing]).then(() => {});
  }

  /** Settles when every socket this connection opened has closed (after the consumer stopped). */
  closed(): Promise<void> {
    return this.#closing;
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
      const settle = (failure: ConnectFailure | undefined) => {
        this.#stop.removeEventListener("abort", stopped);
        resolve(failure);
      };
      // Closed while connecting: socket.io-client then reports nothing more.
      const stopped = () => settle(undefined);
      this.#stop.addEventListener("abort", stopped, { once: true });
      socket.once("connect", () => {
        socket.on("disconnect", (reason: string) => this.#lost(socket, reason));
        settle(undefined);
      });
      socket.once("connect_error", (error: unknown) => {
        this.#close(socket);
        settle(classifyConnectError(error, this.#where()));
      });
    });
  }

  #lost(socket: SocketLike, reason: string): void {
    if (this.#stop.aborted || socket !== this.#socket) return;
    this.#close(socket);
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
