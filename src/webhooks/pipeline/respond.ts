/**
 * Stage "respond": every answer the receiver gives, built in one place. Refusals carry a generic body; the
 * reason goes to the log and the metrics only, never to the sender. Internal.
 *
 * @module
 */

import { getGatewayLogger } from "../../log.ts";
import type { MetricsCollector } from "../../metrics.ts";
import { eventLabel, type WebhookPayloadDto } from "../payload.ts";
import { describeError } from "../run.ts";
import type { Reports } from "./state.ts";

const logger = getGatewayLogger("webhook");

const JSON_TYPE = "application/json";

// A plain object with only the content type lets Deno take its fast path for the response headers. The
// init objects are shared: the Response constructor copies what it reads, so nothing is built per request.
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": JSON_TYPE });
const INITS = new Map<number, ResponseInit>();

/** The fixed response bodies. */
export const BODIES = {
  ok: '{"ok":true}',
  queued: '{"ok":true,"queued":true}',
  duplicate: '{"ok":true,"duplicate":true}',
  inProgress: '{"ok":false,"error":"Conflict: the same delivery is being processed"}',
  health: '{"ok":true,"status":"ok"}',
  notJson: '{"ok":false,"error":"Invalid webhook body: not JSON"}',
  noEvent: '{"ok":false,"error":"Invalid webhook body: expected an object with an \\"event\\" name"}',
  noInstance: '{"ok":false,"error":"Invalid webhook body: no \\"instance\\" (in the body or the URL)"}',
  tooDeep: '{"ok":false,"error":"Invalid webhook body: nested more than 64 levels deep"}',
  badLength: '{"ok":false,"error":"Invalid webhook body: unreadable or bad content-length"}',
  timeout: '{"ok":false,"error":"Request Timeout: the body did not arrive in time"}',
  unauthorized: '{"ok":false,"error":"Unauthorized"}',
  notFound: '{"ok":false,"error":"Not Found"}',
  method: '{"ok":false,"error":"Method Not Allowed"}',
  tooLarge: '{"ok":false,"error":"Payload Too Large"}',
  mediaType: '{"ok":false,"error":"Unsupported Media Type: expected application/json"}',
  failed: '{"ok":false,"error":"Webhook processing failed"}',
  unavailable: '{"ok":false,"error":"Service Unavailable"}',
} as const;

/** `Retry-After` for answers the server should retry soon. */
export const RETRY_AFTER: [string, string][] = [["retry-after", "5"]];

/** A JSON response with a fixed body; the headers and init are shared per status. */
export function respond(status: number, body: string, extra?: [string, string][]): Response {
  if (extra === undefined) {
    let init = INITS.get(status);
    if (init === undefined) INITS.set(status, init = Object.freeze({ status, headers: JSON_HEADERS }));
    return new Response(body, init);
  }
  const headers: Record<string, string> = { "content-type": JSON_TYPE };
  for (const [name, value] of extra) headers[name] = value;
  return new Response(body, { status, headers });
}

/** The thing that counts answers: the handler's metrics, if any. */
export interface Counter {
  readonly metrics: MetricsCollector | undefined;
}

/** Count one answer under `gateway_webhooks_received_total`. */
export function count(counter: Counter, event: string, result: string): void {
  counter.metrics?.webhookReceived(eventLabel(event), result);
}

/** A refusal: counted with its reason, logged (except 404/405, which scanners produce by the thousand). */
export function refuse(
  counter: Counter,
  status: number,
  body: string,
  reason: string,
  detail: string,
  event = "UNKNOWN",
  extra?: [string, string][],
): Response {
  count(counter, event, String(status));
  counter.metrics?.increment("gateway_webhook_rejections_total", { status: String(status), reason });
  if (status !== 404 && status !== 405) {
    logger.warn("Webhook refused ({status} {reason}): {detail}", { status, reason, detail });
  }
  return respond(status, body, extra);
}

/** An unexpected error anywhere in the pipeline: 500, logged; the handler never throws. */
export function fail(counter: Counter, error: unknown): Response {
  count(counter, "UNKNOWN", "500");
  logger.error("Webhook endpoint error: {error}", { error: describeError(error) });
  return respond(500, BODIES.failed);
}

/**
 * 408 for a body that stalled, asking for the connection to be closed. (Deno's HTTP/1.1 server keeps the
 * connection open while the request body is unfinished, whatever the response says: it closes it when the
 * sender sends more or goes away. Deno has no read timeout of its own, denoland/deno#3515.)
 */
export function timedOut(counter: Counter, detail: string): Response {
  count(counter, "UNKNOWN", "408");
  counter.metrics?.increment("gateway_webhook_rejections_total", { status: "408", reason: "body_timeout" });
  logger.warn("Webhook refused (408 body_timeout): {detail}", { detail });
  return respond(408, BODIES.timeout, CLOSE);
}

const CLOSE: [string, string][] = [["connection", "close"]];

/**
 * What a handler threw, for one line: the one failure inside a processor's or a bot's wrapper. A handler
 * that quotes its envelope would print the instance's token (`apikey`): it is replaced before the cut.
 */
export function failureText(error: unknown, apikey: string | undefined): string {
  const errors = (error as { errors?: unknown } | null)?.errors;
  const first = Array.isArray(errors) && errors.length > 0 ? errors[0] : error;
  const more = Array.isArray(errors) && errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  let text = describeError(first);
  if (apikey !== undefined && apikey.length >= 8) text = text.replaceAll(apikey, "[redacted]");
  return `${text.replace(/\s+/g, " ").slice(0, 300)}${more}`;
}

/** The instance as a failure line names it: quoted, at most 100 characters. */
export function instanceLabel(payload: WebhookPayloadDto): string {
  return JSON.stringify(payload.instance.slice(0, 100));
}

/**
 * The stderr line of a webhook whose handlers failed, at most one per event and instance per interval: a
 * handler's bug must be visible without LogTape being configured (the answer's body stays generic).
 */
export function reportFailure(
  receiver: { readonly reports: Reports },
  payload: WebhookPayloadDto,
  status: number,
  error: unknown,
): void {
  const instance = instanceLabel(payload);
  const retried = status >= 500 ? " (the server retries it)" : " (the server does not retry it)";
  receiver.reports.report(
    `${status} ${payload.event} ${instance}`,
    () =>
      `Webhook ${payload.event} for instance ${instance} failed, answered ${status}${retried}: ${
        failureText(error, payload.apikey)
      }`,
  );
}
