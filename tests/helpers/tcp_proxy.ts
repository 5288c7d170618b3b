/**
 * A loopback TCP proxy whose connections a test can cut: a broker "restart" without restarting the broker.
 */

export interface TcpProxy {
  port: number;
  /** Connections accepted so far. */
  accepted: number;
  /** Drop every open connection (the client sees the broker go away). */
  cut(): void;
  close(): Promise<void>;
}

export function startTcpProxy(targetPort: number): TcpProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const pumps = new Set<Promise<void>>();
  const proxy: TcpProxy = {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: 0,
    cut() {
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      open.clear();
    },
    async close() {
      listener.close();
      proxy.cut();
      await accepting;
      await Promise.all([...pumps]);
    },
  };
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable, { preventClose: true });
    } catch {
      // cut
    }
    for (const conn of [from, to]) {
      if (open.delete(conn)) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
    }
  };
  const accepting = (async () => {
    for await (const client of listener) {
      proxy.accepted++;
      const server = await Deno.connect({ hostname: "127.0.0.1", port: targetPort });
      open.add(client);
      open.add(server);
      const pump = Promise.all([pipe(client, server), pipe(server, client)]).then(() => {});
      pumps.add(pump);
      pump.finally(() => pumps.delete(pump));
    }
  })().catch(() => {});
  return proxy;
}
