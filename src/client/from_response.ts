/**
 * Which exception a server answer becomes (docs/errors.md): the one place knowing the server's error shapes.
 *
 * @module
 */

import {
  AuthenticationException,
  ConnectionException,
  GatewayApiException,
  type GatewayErrorContext,
  InstanceAlreadyExistsException,
  InstanceDisconnectedException,
  InstanceNotFoundException,
  MessageException,
  RateLimitException,
  ValidationException,
} from "../errors.ts";
import { envelopeMessage, flattenErrorMessages } from "./error_body.ts";
import { parseRetryAfter } from "./retry.ts";
import { isRecord } from "../util/json_shape.ts";
import { cliCommand } from "../errors/command_hint.ts";

const NAME_TAKEN = /^This name "(.*)" is already in use\.?$/;
const INSTANCE_MISSING = /instance does not exist|instance "[^"]*" not found|Instance "[^"]*" not found/i;
/** Baileys' "Connection Closed", or the TypeError of a socket that was never started. */
const CONNECTION_CLOSED = /Connection Closed|reading 'onWhatsApp'/i;

function isValidationShape(message: unknown): boolean {
  if (!Array.isArray(message) || message.length === 0) return false;
  return message.some((item) =>
    Array.isArray(item) ||
    (item !== null && typeof item === "object" && "property" in item && "message" in item)
  );
}

function hasNotOnWhatsApp(message: unknown): boolean {
  return Array.isArray(message) &&
    message.some((item) =>
      item !== null && typeof item === "object" && (item as { exists?: unknown }).exists === false
    );
}

function isEmptyObject(body: unknown): boolean {
  return isRecord(body) && Object.keys(body).length === 0;
}

/**
 * `/chat/whatsappNumbers` answers 400 with whatever was thrown, serialized: Baileys' `Connection Closed` for
 * a socket that is down, and `{}` (a TypeError has no enumerable field) for one that was never started.
 */
function isDisconnected(status: number, text: string, body: unknown, path: string | undefined): boolean {
  if ((status === 400 || status >= 500) && CONNECTION_CLOSED.test(text)) return true;
  return status === 400 && isEmptyObject(body) && path?.startsWith("/chat/whatsappNumbers/") === true;
}

/** "Cannot send" for a message route, else the request; names the instance and the pairing command. */
function disconnectedMessage(where: string, full: GatewayErrorContext, detail: string): string {
  const action = full.path?.startsWith("/message/") ? "send" : where;
  const named = full.instance ? `"${full.instance}" ` : "";
  const pair = cliCommand(`connect ${full.instance ?? "<instance>"}`);
  return `Cannot ${action}: instance ${named}is not connected${detail} (pair it: ${pair})`;
}

/** The server's messages as the end of an error message: `: a; b`, cut at 1000 characters. */
function detailOf(messages: string[]): string {
  if (messages.length === 0) return "";
  const joined = messages.join("; ");
  return `: ${joined.length > 1000 ? `${joined.slice(0, 1000)}… (${messages.length} messages)` : joined}`;
}

/** A 404: the instance does not exist (named), or the route does not. */
function notFound(
  full: GatewayErrorContext,
  where: string,
  detail: string,
  text: string,
): GatewayApiException {
  if (!INSTANCE_MISSING.test(text)) {
    return new GatewayApiException(`Gateway answered 404 for ${where}${detail}`, full);
  }
  const named = full.instance ?? /"([^"]*)"/.exec(text)?.[1];
  const create = `(create it: ${cliCommand(`create ${named ?? "<instance>"}`)})`;
  return new InstanceNotFoundException(
    `Instance ${named ? `"${named}" ` : ""}not found for ${where}${detail} ${create}`,
    { ...full, instance: named },
  );
}

/** The license gate's 503 (`code: "LICENSE_REQUIRED"`, servers 2.4 until activated), else null. */
function licenseRequired(body: unknown, full: GatewayErrorContext): ConnectionException | null {
  if (body === null || typeof body !== "object" || (body as { code?: unknown }).code !== "LICENSE_REQUIRED") {
    return null;
  }
  const url = (body as { register_url?: unknown }).register_url;
  return new ConnectionException(
    `Gateway server is not activated (LICENSE_REQUIRED); register it at "${String(url ?? "")}"`,
    { ...full, reason: "license_required" },
  );
}

/** The exception a status alone decides (a taken name, refused, not found, rate limited, not activated). */
function statusException(
  full: GatewayErrorContext & { status: number; messages: string[] },
  where: string,
  detail: string,
  text: string,
  headers: Headers,
  now: number,
): GatewayApiException | null {
  const { status, messages } = full;
  const taken = status === 403 && messages.length === 1 ? NAME_TAKEN.exec(messages[0]) : null;
  if (taken !== null) {
    return new InstanceAlreadyExistsException(
      `Cannot create instance "${taken[1]}": the name is already in use`,
      { ...full, instance: taken[1] },
    );
  }
  if (status === 401 || status === 403) {
    return new AuthenticationException(`Gateway refused ${where} (${status})${detail}`, full);
  }
  if (status === 404) return notFound(full, where, detail, text);
  if (status === 429) {
    const ms = parseRetryAfter(headers, now);
    return new RateLimitException(
      `Gateway rate limit reached for ${where}`,
      full,
      ms === null ? null : Math.ceil(ms / 1000),
    );
  }
  return status === 503 ? licenseRequired(full.body, full) : null;
}

/** The exception a server answer stands for (docs/errors.md's table), or null for a success. */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Headers,
  context: GatewayErrorContext,
  now: number = Date.now(),
): GatewayApiException | null {
  const success = status >= 200 && status < 300;
  // The common case returns before any message is built.
  if (
    success && (body === null || typeof body !== "object" || (body as { error?: unknown }).error !== true)
  ) {
    return null;
  }
  const messages = flattenErrorMessages(body);
  const full = { ...context, status, body, messages };
  const where = `${context.method ?? "GET"} ${context.path ?? "/"}`;
  const detail = detailOf(messages);
  const message = envelopeMessage(body);
  const text = messages.join(" ");

  if (success) return new GatewayApiException(`Gateway reported an error for ${where}${detail}`, full);
  const byStatus = statusException(full, where, detail, text, headers, now);
  if (byStatus !== null) return byStatus;
  if (hasNotOnWhatsApp(message)) {
    return new MessageException(`Cannot send: recipient is not on WhatsApp${detail}`, {
      ...full,
      reason: "not_on_whatsapp",
    });
  }
  if (isDisconnected(status, text, body, context.path)) {
    return new InstanceDisconnectedException(disconnectedMessage(where, full, detail), full);
  }
  if (status === 422 || (status === 400 && isValidationShape(message))) {
    return new ValidationException(`Gateway rejected the request for ${where}${detail}`, full);
  }
  if (status >= 500) {
    return new ConnectionException(`Gateway server error ${status} for ${where}${detail}`, {
      ...full,
      reason: "server_error",
    });
  }
  return new GatewayApiException(`Gateway answered ${status} for ${where}${detail}`, full);
}
