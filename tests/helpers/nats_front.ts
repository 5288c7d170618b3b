/**
 * A loopback front for a nats-server that drops connections the way a server does: `reset()` ends every
 * open connection with a TCP reset, and `refuseNext(n)` answers the next `n` connections as a server that
 * refuses the credentials (its INFO, then `-ERR 'Authorization Violation'` on CONNECT, then a reset).
 * node:net because `Deno.Conn` cannot send a reset (no SO_LINGER); tests only, never `src/`.
 */

import net from "node:net";

export interface NatsFront {
  port: number;
  /** Connections passed through to the server so far. */
  accepted: number;
  /** Connections refused so far. */
  refused: number;
  /** Refuse the next `count` connections. */
  refuseNext(count: number): void;
  /** Reset every open connection (the client sees the server drop it). */
  reset(): void;
  close(): Promise<void>;
}

const INFO = `INFO ${
  JSON.stringify({
    server_id: "front",
    version: "2.10.0",
    proto: 1,
    max_payload: 1048576,
    headers: true,
    auth_required: true,
  })
}\r\n`;

export async function startNatsFront(targetPort: number): Promise<NatsFront> {
  const sockets = new Set<net.Socket>();
  const passing = new Set<net.Socket>();
  const closed: Promise<void>[] = [];
  let refusing = 0;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("error", () => {}); // a reset or a peer gone: the close below is what the front acts on
    closed.push(new Promise((resolve) => socket.once("close", () => resolve())));
    socket.once("close", () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    track(client);
    if (refusing > 0) {
      refusing--;
      front.refused++;
      client.write(INFO);
      client.once(
        "data",
        () => client.write("-ERR 'Authorization Violation'\r\n", () => client.resetAndDestroy()),
      );
      return;
    }
    front.accepted++;
    const upstream = net.connect(targetPort, "127.0.0.1");
    track(upstream);
    passing.add(client);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once("close", () => {
      passing.delete(client);
      upstream.destroy();
    });
    upstream.once("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const front: NatsFront = {
    port: (server.address() as net.AddressInfo).port,
    accepted: 0,
    refused: 0,
    refuseNext(count) {
      refusing = count;
    },
    reset() {
      for (const client of passing) client.resetAndDestroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(closed);
    },
  };
  return front;
}
