/**
 * `MockGatewayServer`: the simulated gateway server on a real local HTTP port.
 *
 * @module
 */

import { denoOnlyError } from "../runtime.ts";
import { SimulatedConnectionDrop } from "./simulator/faults.ts";
import { GatewaySimulator } from "./simulator/simulator.ts";
import type { SimulatorOptions } from "./simulator/types.ts";
import { DROP_HEADER, TcpRelay } from "./tcp_relay.ts";

/**
 * Options of {@link MockGatewayServer.start}: the simulator's options plus where to listen.
 *
 * @example
 * ```ts
 * import { MockGatewayServer } from "@gw/gateway/testing";
 * await using mock = await MockGatewayServer.start({ apiKey: "k", port: 0, hostname: "127.0.0.1" });
 * ```
 */
export interface MockGatewayServerOptions extends SimulatorOptions {
  /** Port to listen on. Default 0 (a free port). */
  port?: number;
  /** Address to listen on. Default `"127.0.0.1"`. */
  hostname?: string;
}

function urlHost(hostname: string): string {
  if (hostname === "0.0.0.0") return "127.0.0.1";
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/**
 * The simulated gateway server listening on a local port. It is a {@link GatewaySimulator}, so every
 * control (`simulateScan`, `simulateInboundMessage`, `failNext`, `requests`, `deliveries` ...) is on the
 * server object itself.
 *
 * @example Start, use, close
 * ```ts
 * import { MockGatewayServer } from "@gw/gateway/testing";
 * await using mock = await MockGatewayServer.start({ apiKey: "test-key" });
 * const res = await fetch(`${mock.url}/instance/create`, {
 *   method: "POST",
 *   headers: { apikey: "test-key", "content-type": "application/json" },
 *   body: JSON.stringify({ instanceName: "sales", integration: "WHATSAPP-BAILEYS" }),
 * });
 * console.log(res.status, (await res.json()).hash);
 * ```
 */
export class MockGatewayServer extends GatewaySimulator {
  /** Base URL, such as `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The port listened on. */
  readonly port: number;
  readonly #relay: TcpRelay;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #closing?: Promise<void>;

  private constructor(options: MockGatewayServerOptions, listener: Deno.TcpListener, hostname: string) {
    super(options);
    this.port = listener.addr.port;
    this.url = `http://${urlHost(hostname)}:${this.port}`;
    if (this.serverUrl === undefined) this.serverUrl = this.url;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (request, info) => {
        try {
          return await this.handle(await this.#withClientSignal(request, info.remoteAddr.port));
        } catch (error) {
          // A scripted drop: the relay sees the token and closes the client's socket unanswered.
          if (error instanceof SimulatedConnectionDrop) {
            return new Response(null, { status: 500, headers: { [DROP_HEADER]: this.#relay.token } });
          }
          // The client went away during a delay (or the server is closing): nobody reads this.
          return new Response(null, { status: 503 });
        }
      },
    );
    // Only the relay accepts public connections, so no request can arrive before it exists.
    this.#relay = new TcpRelay(listener, this.#server.addr.port);
  }

  /**
   * A copy of `request` whose signal aborts when the client's connection closes. Reading
   * `request.signal` of `Deno.serve` itself would print a deprecation notice in users' tests.
   */
  async #withClientSignal(request: Request, port: number): Promise<Request> {
    const body = request.body === null ? undefined : await request.arrayBuffer();
    return new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      signal: this.#relay.signalFor(port),
    });
  }

  /** Start a mock server on `hostname:port` (default `127.0.0.1`, a free port). */
  static start(options: MockGatewayServerOptions = {}): Promise<MockGatewayServer> {
    const deno = (globalThis as { Deno?: typeof Deno }).Deno;
    if (typeof deno?.serve !== "function" || typeof deno.listen !== "function") {
      return Promise.reject(
        denoOnlyError("MockGatewayServer", "serve `new GatewaySimulator().handle` from your own HTTP server"),
      );
    }
    const hostname = options.hostname ?? "127.0.0.1";
    const listener = deno.listen({ hostname, port: options.port ?? 0, transport: "tcp" });
    return Promise.resolve(new MockGatewayServer(options, listener, hostname));
  }

  /** Stop listening, close open connections, stop timers and pending webhook deliveries. */
  override close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#relay.close();
      await super.close();
      await this.#server.shutdown();
    })();
    return this.#closing;
  }
}
