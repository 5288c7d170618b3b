// A socket.io server on 127.0.0.1 that behaves like the gateway server's (Evolution API 2.3.6,
// websocket.controller.ts): the api key checked during the handshake (`apikey` query or header, refused
// with its reason), one namespace per instance created when the server first publishes for it, and each
// event emitted under its dotted name with the webhook's envelope.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "../npm/socket_io.ts";

export interface EvolutionSocketIo {
  url: string;
  /** Handshakes refused for a wrong or missing key. */
  refused: number;
  /** Open `/<instance>` (the server does it on its first publish for the instance). */
  open(instance: string): void;
  /** Emit one event the way the server does. */
  emit(instance: string, event: string, data: unknown): void;
  /** Close every connection of the namespace (the client sees "transport close"). */
  drop(instance: string): void;
  close(): Promise<void>;
}

export async function startEvolutionSocketIo(apiKey: string): Promise<EvolutionSocketIo> {
  const http = createServer();
  const state = { refused: 0 };
  const io = new Server(http, {
    allowRequest: (req, callback) => {
      const url = new URL(req.url ?? "", "http://localhost");
      const key = url.searchParams.get("apikey") ?? req.headers.apikey;
      if (!key) {
        state.refused++;
        return callback("apiKey is required", false);
      }
      if (key !== apiKey) {
        state.refused++;
        return callback("Invalid global token", false);
      }
      callback(null, true);
    },
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    get refused() {
      return state.refused;
    },
    open: (instance) => void io.of(`/${instance}`),
    emit: (instance, event, data) => {
      io.of(`/${instance}`).emit(event, {
        event,
        instance,
        data,
        server_url: url,
        date_time: new Date(0).toISOString(),
        sender: "5511988887777@s.whatsapp.net",
        apikey: apiKey,
      });
    },
    // The connection itself closes (a network drop), not a socket.io disconnect.
    drop: (instance) => io.of(`/${instance}`).sockets.forEach((socket) => socket.conn.close()),
    close: () => new Promise<void>((resolve) => io.close(() => resolve())),
  };
}
