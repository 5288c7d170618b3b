// A socket.io server on 127.0.0.1 that behaves like the gateway server's (Evolution API 2.3.6,
// websocket.controller.ts, on socket.io 4 / engine.io 6), over the websocket transport only: the api key
// checked during the handshake (`apikey` query or header; refused the way engine.io refuses an upgrade, HTTP
// 400 with the reason), one namespace per instance that exists once the server first publishes for it
// ("Invalid namespace" before), each event emitted under its dotted name with the webhook's envelope.
//
// Written against the protocol (engine.io v4 packets `0` open, `4` message; socket.io v5 packets `0`
// connect, `1` disconnect, `2` event, `4` connect error) rather than with npm's `socket.io` server: that
// package installs `@types/node`, which breaks the type check of every test program that loads miniflare.

export interface EvolutionSocketIo {
  url: string;
  /** Handshakes refused for a wrong or missing key. */
  refused: number;
  /** Open `/<instance>` (the server does it on its first publish for the instance). */
  open(instance: string): void;
  /** Emit one event the way the server does, to every client of `/<instance>`. */
  emit(instance: string, event: string, data: unknown): void;
  /** Close every connection of the namespace (the client sees "transport close"). */
  drop(instance: string): void;
  close(): Promise<void>;
}

interface Client {
  ws: WebSocket;
  namespaces: Set<string>;
}

export function startEvolutionSocketIo(apiKey: string): Promise<EvolutionSocketIo> {
  const state = { refused: 0 };
  const opened = new Set<string>();
  const clients = new Set<Client>();
  const ready = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => ready.resolve(port) },
    (request) => {
      const url = new URL(request.url);
      if (url.pathname !== "/socket.io/") return new Response("Cannot GET", { status: 404 });
      const key = url.searchParams.get("apikey") ?? request.headers.get("apikey");
      if (key !== apiKey) {
        state.refused++;
        return new Response(key ? "Invalid global token" : "apiKey is required", { status: 400 });
      }
      if (url.searchParams.get("EIO") !== "4" || url.searchParams.get("transport") !== "websocket") {
        return new Response("Transport unknown", { status: 400 });
      }
      const { socket, response } = Deno.upgradeWebSocket(request);
      const client: Client = { ws: socket, namespaces: new Set() };
      clients.add(client);
      socket.onopen = () =>
        socket.send(
          `0${
            JSON.stringify({
              sid: crypto.randomUUID(),
              upgrades: [],
              pingInterval: 25000,
              pingTimeout: 20000,
            })
          }`,
        );
      socket.onmessage = (event) => onPacket(client, String(event.data), opened);
      socket.onclose = () => clients.delete(client);
      return response;
    },
  );
  return ready.promise.then((port) => {
    const url = `http://127.0.0.1:${port}`;
    return {
      url,
      get refused() {
        return state.refused;
      },
      open: (instance) => void opened.add(`/${instance}`),
      emit: (instance, event, data) => {
        opened.add(`/${instance}`);
        const envelope = {
          event,
          instance,
          data,
          server_url: url,
          date_time: new Date(0).toISOString(),
          sender: "5511988887777@s.whatsapp.net",
          apikey: apiKey,
        };
        for (const client of clients) {
          if (client.namespaces.has(`/${instance}`)) {
            client.ws.send(`42/${instance},${JSON.stringify([event, envelope])}`);
          }
        }
      },
      drop: (instance) => {
        for (const client of clients) if (client.namespaces.has(`/${instance}`)) client.ws.close();
      },
      close: async () => {
        for (const client of clients) client.ws.close();
        await server.shutdown();
      },
    };
  });
}

/** One engine.io packet from a client: namespace connects and disconnects (pings are the server's to send). */
function onPacket(client: Client, packet: string, opened: Set<string>): void {
  if (!packet.startsWith("4")) return;
  const match = /^4([01])(\/[^,]*)?,?/.exec(packet);
  if (match === null) return;
  const namespace = match[2] ?? "/";
  if (match[1] === "1") {
    client.namespaces.delete(namespace);
    return;
  }
  if (!opened.has(namespace)) {
    client.ws.send(`44${namespace},${JSON.stringify({ message: "Invalid namespace" })}`);
    return;
  }
  client.namespaces.add(namespace);
  client.ws.send(`40${namespace},${JSON.stringify({ sid: crypto.randomUUID() })}`);
}
