import { AuthenticationException, ConfigurationException, ConnectionException } from "../../errors.ts";

/** A connect failure, classified. Internal. */
export interface ConnectFailure {
  /** `refused` and `disabled` stop the source; `namespace` and `network` are retried. */
  kind: "refused" | "disabled" | "namespace" | "network";
  /** The error to show. */
  error: Error;
}

function text(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (value !== null && typeof value === "object" && "message" in value) return String(value.message);
  return value === undefined ? "" : String(value);
}

/**
 * Classify socket.io-client's `connect_error`. Evolution refuses a key during the engine.io handshake, and
 * the websocket transport then reports only the handshake's status (engine.io answers 400 to any refused
 * upgrade); a namespace the server has not created yet is refused as "Invalid namespace".
 */
export function classifyConnectError(
  raw: unknown,
  where: { address: string; instance: string; apiKey: string },
): ConnectFailure {
  const scrub = (line: string) => line.replaceAll(where.apiKey, "[REDACTED]");
  const head =
    `Cannot connect to the gateway's socket.io at "${where.address}" (instance "${where.instance}")`;
  const message = text(raw);
  if (message === "Invalid namespace") {
    return {
      kind: "namespace",
      error: new ConnectionException(
        `${head}: the server has not opened the namespace "/${where.instance}" yet (it does when it first ` +
          `publishes one of the instance's events)`,
        { instance: where.instance, reason: "network" },
      ),
    };
  }
  const detail = scrub(text((raw as { description?: unknown } | null)?.description) || message);
  const status = /Unexpected server response: (\d{3})/.exec(detail)?.[1];
  if (status === "400" || status === "401" || status === "403") {
    return {
      kind: "refused",
      error: new AuthenticationException(
        `${head}: the server refused the api key (HTTP ${status} on the socket.io handshake)`,
        { status: Number(status), instance: where.instance },
      ),
    };
  }
  if (status === "404") {
    return {
      kind: "disabled",
      error: new ConfigurationException(
        `${head}: the server has no socket.io (HTTP 404): start it with WEBSOCKET_ENABLED=true`,
        { instance: where.instance },
      ),
    };
  }
  return {
    kind: "network",
    error: new ConnectionException(`${head}: ${detail || "no answer"}`, {
      instance: where.instance,
      reason: message === "timeout" ? "timeout" : "network",
      timedOut: message === "timeout",
    }),
  };
}
