// Typed here, loaded when a connection opens: our types never depend on the AMQP package.

import { ConnectionException } from "../../errors.ts";
import { errorMessage } from "../../util/error_message.ts";
import { brokerAddress, withoutSecret } from "../scope.ts";

/** The message properties the source reads and writes. */
export interface AmqpProperties {
  headers?: Record<string, unknown>;
  messageId?: string;
  contentType?: string;
  deliveryMode?: number;
}

/** One delivered message. */
export interface AmqpMessage {
  routingKey: string;
  exchange: string;
  properties: AmqpProperties;
  body: Uint8Array | null;
  bodyString(): string | null;
  ack(): Promise<void>;
  nack(requeue?: boolean): Promise<void>;
}

/** One channel. */
export interface AmqpChannel {
  closed: boolean;
  /** The channel's consumers by tag (the client's own map). */
  consumers: Map<string, unknown>;
  prefetch(count: number): Promise<void>;
  confirmSelect(): Promise<void>;
  exchangeDeclare(
    name: string,
    type: string,
    params: { durable: boolean; autoDelete: boolean },
  ): Promise<void>;
  queueDeclare(
    name: string,
    params: { durable: boolean; autoDelete: boolean },
    args?: Record<string, unknown>,
  ): Promise<{ messageCount: number }>;
  queueBind(queue: string, exchange: string, routingKey: string): Promise<void>;
  basicConsume(
    queue: string,
    params: { noAck: boolean; tag?: string },
    callback: (message: AmqpMessage) => void,
  ): Promise<{ tag: string }>;
  basicCancel(tag: string): Promise<unknown>;
  basicGet(queue: string, params: { noAck: boolean }): Promise<AmqpMessage | null>;
  basicPublish(
    exchange: string,
    routingKey: string,
    body: Uint8Array | string,
    properties?: AmqpProperties,
  ): Promise<number>;
  close(): Promise<void>;
}

/** One connection. */
export interface AmqpConnection {
  closed: boolean;
  channel(): Promise<AmqpChannel>;
  close(): Promise<void>;
  onerror: (error: Error) => void;
  ondisconnect?: (error?: Error) => void;
}

/** `RabbitMQ at host:port`: how messages name the broker. */
export function rabbitLabel(url: URL): string {
  return `RabbitMQ at ${brokerAddress(url, url.protocol === "amqps:" ? 5671 : 5672)}`;
}

/**
 * Connect, or a `ConnectionException` naming the broker's host and port and why (refused, credentials
 * refused, timed out), never the password. `onLost` is called once when an open connection ends.
 */
export async function openAmqp(
  url: URL,
  timeoutMs: number,
  onLost: (error: Error) => void = () => {},
): Promise<AmqpConnection> {
  // deno-lint-ignore no-import-prefix -- only ./rabbitmq users install the client (not in the import map)
  const { AMQPClient } = await import("npm:@cloudamqp/amqp-client@4.1.1");
  const client = new AMQPClient(url.href) as unknown as AmqpConnection & { connect(): Promise<unknown> };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(), timeout]);
  } catch (error) {
    client.close().catch(() => {});
    throw new ConnectionException(
      `Cannot connect to ${rabbitLabel(url)}: ${withoutSecret(describeFailure(error), url)}`,
      { reason: "network" },
    );
  } finally {
    clearTimeout(timer);
  }
  let lost = false;
  const report = (error?: Error) => {
    if (lost) return;
    lost = true;
    onLost(
      new Error(withoutSecret(error === undefined ? "the connection closed" : errorMessage(error), url)),
    );
  };
  client.onerror = report;
  client.ondisconnect = report;
  return client;
}

function describeFailure(error: unknown): string {
  const text = errorMessage(error);
  if (/ACCESS_REFUSED|403/.test(text)) return `the broker refused the credentials (${text})`;
  if (/ECONNREFUSED|refused/i.test(text)) return `connection refused (${text})`;
  return text;
}
