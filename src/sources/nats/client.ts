// Typed here, loaded when a connection opens: our types never depend on the NATS packages.

import { ConnectionException } from "../../errors.ts";
import { errorMessage } from "../../util/error_message.ts";
import { brokerAddress, withoutSecret } from "../scope.ts";
import { connectNats } from "./transport.ts";

/** Message headers. */
export interface NatsHeaders {
  get(name: string): string;
  set(name: string, value: string): void;
}

/** One JetStream message delivered to a consumer. */
export interface NatsJsMsg {
  subject: string;
  data: Uint8Array;
  info: { deliveryCount: number; streamSequence: number };
  string(): string;
  ack(): void;
  nak(millis?: number): void;
  term(reason?: string): void;
}

/** A message read from a stream by its sequence. */
export interface NatsStoredMsg {
  subject: string;
  seq: number;
  data: Uint8Array;
  header: NatsHeaders;
  string(): string;
}

/** The JetStream calls the source makes. */
export interface NatsJetStream {
  publish(subject: string, data: Uint8Array, options?: { headers?: NatsHeaders }): Promise<unknown>;
  consumers: {
    get(stream: string, name: string): Promise<{
      consume(options: { max_messages: number }): Promise<AsyncIterable<NatsJsMsg> & { stop(): void }>;
    }>;
  };
}

/** The JetStream management calls the source makes. */
export interface NatsJetStreamManager {
  streams: {
    info(
      name: string,
    ): Promise<{ config: Record<string, unknown> & { subjects?: string[] }; state: StreamState }>;
    add(config: Record<string, unknown>): Promise<unknown>;
    update(name: string, config: Record<string, unknown>): Promise<unknown>;
    getMessage(stream: string, query: { seq: number }): Promise<NatsStoredMsg | null>;
    deleteMessage(stream: string, seq: number): Promise<boolean>;
  };
  consumers: {
    info(stream: string, name: string): Promise<unknown>;
    add(stream: string, config: Record<string, unknown>): Promise<unknown>;
  };
}

/** A stream's first and last sequence. */
export interface StreamState {
  first_seq: number;
  last_seq: number;
  messages: number;
}

/** An open connection with its JetStream views. */
export interface NatsLink {
  js: NatsJetStream;
  jsm: NatsJetStreamManager;
  headers(): NatsHeaders;
  /** Resolves when the connection ended (it does not reconnect by itself: the consumer does). */
  closed: Promise<unknown>;
  close(): Promise<void>;
}

/** `NATS at host:port`: how messages name the server. */
export function natsLabel(url: URL): string {
  return `NATS at ${brokerAddress(url, 4222)}`;
}

/**
 * Connect (user and password, or a token as the user name, from the URL), or a `ConnectionException` naming
 * the server's host and port and why, never the password.
 */
export async function openNats(url: URL, timeoutMs: number): Promise<NatsLink> {
  // deno-lint-ignore no-import-prefix -- only ./nats users install the client (not in the import map)
  const nats = await import("npm:@nats-io/transport-node@3.4.0");
  // deno-lint-ignore no-import-prefix -- only ./nats users install the client (not in the import map)
  const jetstream = await import("npm:@nats-io/jetstream@3.4.0");
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  const credentials = user === "" ? {} : pass === "" ? { token: user } : { user, pass };
  let connection;
  try {
    connection = await connectNats({
      servers: brokerAddress(url, 4222),
      timeout: timeoutMs,
      reconnect: false,
      ...credentials,
    });
  } catch (error) {
    throw new ConnectionException(
      `Cannot connect to ${natsLabel(url)}: ${withoutSecret(describeFailure(error), url)}`,
      { reason: "network" },
    );
  }
  const jsm = await jetstream.jetstreamManager(connection);
  return {
    js: jetstream.jetstream(connection) as unknown as NatsJetStream,
    jsm: jsm as unknown as NatsJetStreamManager,
    headers: () => nats.headers() as unknown as NatsHeaders,
    closed: connection.closed(),
    close: async () => {
      if (!connection.isClosed()) await connection.drain().catch(() => connection.close());
    },
  };
}

function describeFailure(error: unknown): string {
  const text = errorMessage(error);
  if (/authori[sz]ation|authentication/i.test(text)) return `the server refused the credentials (${text})`;
  if (/ECONNREFUSED|refused/i.test(text)) return `connection refused (${text})`;
  return text;
}
