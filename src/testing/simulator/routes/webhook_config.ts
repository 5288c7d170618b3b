/**
 * `/webhook/set` and `/webhook/find` (contract §2.7): wrapped body, `events` rules, stored row.
 *
 * @module
 */

import { internalString } from "../errors.ts";
import { INSTANCE_EVENTS } from "../events.ts";
import { route, type RouteContext, type RouteDef } from "../route.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { WEBHOOK_SCHEMA } from "../schemas.ts";
import { checkBody } from "../validate.ts";

function set(ctx: RouteContext): unknown {
  checkBody(ctx.body, WEBHOOK_SCHEMA);
  const input = ctx.body.webhook as Record<string, unknown>;
  let events: string[];
  if (!input.enabled) {
    events = [];
  } else if (!Array.isArray(input.events)) {
    // The controller reads `.length` of undefined; the TypeError escapes as a 500.
    throw internalString("Cannot read properties of undefined (reading 'length')");
  } else {
    events = input.events.length === 0 ? [...INSTANCE_EVENTS] : input.events.map(String);
  }
  const now = ctx.core.isoNow();
  const previous = ctx.instance.webhook;
  ctx.instance.webhook = {
    id: previous?.id ?? crypto.randomUUID(),
    url: String(input.url),
    headers: (input.headers as Record<string, unknown> | undefined) ?? previous?.headers ?? null,
    enabled: input.enabled === true,
    events,
    webhookByEvents: typeof input.byEvents === "boolean"
      ? input.byEvents
      : previous?.webhookByEvents ?? false,
    webhookBase64: typeof input.base64 === "boolean" ? input.base64 : previous?.webhookBase64 ?? false,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    instanceId: ctx.instance.id,
  };
  return { ...ctx.instance.webhook };
}

/** The 2 webhook configuration routes. */
export const WEBHOOK_CONFIG_ROUTES: readonly RouteDef[] = [
  route(ROUTE.webhook.set, set),
  route(ROUTE.webhook.find, (ctx) => (ctx.instance.webhook ? { ...ctx.instance.webhook } : null)),
];
