/**
 * A byte relay in front of `Deno.serve`, so that the mock server can drop a connection before any
 * response byte is written: `Deno.serve` always writes a response (a 500 when the handler throws),
 * so the handler marks the response with a secret header instead and the relay closes both sockets
 * when it sees that header.
 *
 * Deno only: called at runtime, never at import time.
 *
 * @module
 */

/** The header a handler sets (with the relay's token) to have the connection dropped. */
export const DROP_HEADER = "x-simulated-drop";

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** Relays every connection of `listener` to `target`, dropping those whose response carries the token. */
export class TcpRelay {
  /** Random value of {@link DROP_HEADER} that triggers a drop. */
  readonly token: string = crypto.randomUUID();
  readonly #listener: Deno.Listener;
  readonly #targetPort: number;
  readonly #marker: Uint8Array;
  readonly #conns = new Set<Deno.Conn>();
  readonly #tasks = new Set<Promise<void>>();
  /** Per upstream local port: aborted when the client side of that connection closes. */
  readonly #signals = new Map<number, AbortController>();
  #acceptLoop: Promise<void>;
  #closed = false;

  constructor(listener: Deno.Listener, targetPort: number) {
    this.#listener = listener;
    this.#targetPort = targetPort;
    this.#marker = new TextEncoder().encode(this.token);
    this.#acceptLoop = this.#accept();
  }

  async #accept(): Promise<void> {
    while (!this.#closed) {
      let client: Deno.Conn;
      try {
        client = await this.#listener.accept();
      } catch {
        return;
      }
      const task = this.#relay(client).finally(() => this.#tasks.delete(task));
      this.#tasks.add(task);
    }
  }

  async #relay(client: Deno.Conn): Promise<void> {
    this.#conns.add(client);
    let upstream: Deno.TcpConn | undefined;
    let port: number | undefined;
    const closeBoth = () => {
      if (port !== undefined) {
        this.#signals.get(port)?.abort(new DOMException("The client closed the connection", "AbortError"));
        this.#signals.delete(port);
        port = undefined;
      }
      for (const conn of [client, upstream]) {
        if (!conn || !this.#conns.has(conn)) continue;
        this.#conns.delete(conn);
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      }
    };
    try {
      upstream = await Deno.connect({ hostname: "127.0.0.1", port: this.#targetPort });
      this.#conns.add(upstream);
      port = upstream.localAddr.port;
      this.#signals.set(port, new AbortController());
    } catch {
      closeBoth();
      return;
    }
    const pump = async (from: Deno.Conn, to: Deno.Conn, inspect: boolean) => {
      const buffer = new Uint8Array(64 * 1024);
      try {
        while (true) {
          const n = await from.read(buffer);
          if (n === null) break;
          const chunk = buffer.subarray(0, n);
          if (inspect && indexOf(chunk, this.#marker) >= 0) break;
          await writeAll(to, chunk);
        }
      } catch {
        // A closed socket ends the relay.
      } finally {
        closeBoth();
      }
    };
    await Promise.all([pump(client, upstream, false), pump(upstream, client, true)]);
  }

  /**
   * The signal of the relayed connection whose upstream socket has local port `port` (the
   * `remoteAddr.port` that `Deno.serve` reports): it aborts when the client goes away.
   */
  signalFor(port: number): AbortSignal | undefined {
    return this.#signals.get(port)?.signal;
  }

  /** Stop accepting, close every relayed connection and wait for the relay tasks to end. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#listener.close();
    } catch {
      // Already closed.
    }
    for (const conn of this.#conns) {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    }
    this.#conns.clear();
    await this.#acceptLoop;
    await Promise.allSettled([...this.#tasks]);
  }
}
