/**
 * `connect` of `@nats-io/transport-node` 3.4.0 with one change: a socket of the connection never throws an
 * `error` event that nobody listens to.
 *
 * Why: the package's `NodeTransport` listens for its socket's `error` and `close`, and calls
 * `removeAllListeners()` on the socket when it lets it go (`_closed`, also at the end of each connect step).
 * Under Deno's node:net a reset can be read in the same turn as the server's last words, e.g.
 * `-ERR 'Authorization Violation'` followed by the reset when a server refuses the credentials: the read fails
 * and queues the socket's `error` (process.nextTick), the protocol then handles the `-ERR` in promise jobs,
 * closes the transport and removes every listener, and only then does the queued `error` fire, with no
 * listener, so the EventEmitter throws it as an uncaught `ECONNRESET` that ends the process (a consumer
 * reconnecting to a server that refuses it a few times died so). Node reads the reset in a later turn, after
 * the socket was destroyed, so it never sees this. The guard drops only an `error` that finds no listener:
 * the transport has let that socket go and already reported the connection's end (`closed()`, or the
 * connect's own error), so nothing is lost. Node and Bun run the same code.
 *
 * @module
 */

import type { Socket } from "node:net";
// deno-lint-ignore no-import-prefix -- only ./nats users install the client (not in the import map)
import type { NatsConnection, NodeConnectionOptions } from "npm:@nats-io/transport-node@3.4.0";

/** Connect as the package's `connect` does, through a transport whose sockets keep late errors to themselves. */
export async function connectNats(options: NodeConnectionOptions): Promise<NatsConnection> {
  // deno-lint-ignore no-import-prefix -- only ./nats users install the client (not in the import map)
  const nats = await import("npm:@nats-io/transport-node@3.4.0");
  // deno-lint-ignore no-import-prefix -- the transport class the package's own connect uses (no exports map)
  const node = await import("npm:@nats-io/transport-node@3.4.0/lib/node_transport.js");
  class GuardedTransport extends node.NodeTransport {
    override async dial(hp: { hostname: string; port: number }) {
      return dropUnheardErrors(await super.dial(hp));
    }
    override async tlsFirst(hp: { hostname: string; port: number }) {
      return dropUnheardErrors(await super.tlsFirst(hp));
    }
    override async startTLS() {
      return dropUnheardErrors(await super.startTLS());
    }
  }
  // The factory is the package's module-wide setting, which its own connect() sets the same way on every call:
  // a connect() of the package's run by other code in the very microtasks between this line and the dial
  // below would give this one connection the package's unguarded transport (as before), nothing worse.
  nats.setTransportFactory({ factory: () => new GuardedTransport(), dnsResolveFn: node.nodeResolveHost });
  return await nats.NatsConnectionImpl.connect(options);
}

function dropUnheardErrors<S extends Socket>(socket: S): S {
  const emit = socket.emit;
  socket.emit = function (this: S, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "error" && this.listenerCount("error") === 0) return false;
    return Reflect.apply(emit, this, [event, ...args]);
  } as S["emit"];
  return socket;
}
