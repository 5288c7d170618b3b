/**
 * `connect` of `@nats-io/transport-node` 3.4.0, but a socket never throws an `error` nobody listens to.
 *
 * Why: the transport removes its socket's listeners when it lets the socket go. Under Deno's node:net a reset
 * read in the same turn as the server's `-ERR 'Authorization Violation'` queues the socket's `error`, which
 * fires after that removal and is thrown as an uncaught `ECONNRESET` that ends the process. Only an `error`
 * with no listener is dropped: the transport already reported the connection's end, so nothing is lost.
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
  // A module-wide setting the package's own connect() also sets: another connect() in the microtasks before
  // the dial below gives this connection the unguarded transport, nothing worse.
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
