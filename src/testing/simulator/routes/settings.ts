/**
 * `/settings/set` and `/settings/find` (contract §2.8).
 *
 * @module
 */

import { route, type RouteContext, type RouteDef } from "../route.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { SETTINGS_SCHEMA } from "../schemas.ts";
import { checkBody } from "../validate.ts";

const FIELDS = [
  "rejectCall",
  "msgCall",
  "groupsIgnore",
  "alwaysOnline",
  "readMessages",
  "readStatus",
  "syncFullHistory",
  "wavoipToken",
];

function set(ctx: RouteContext): unknown {
  checkBody(ctx.body, SETTINGS_SCHEMA);
  const stored: Record<string, unknown> = {};
  for (const field of FIELDS) stored[field] = ctx.body[field] ?? ctx.instance.settings?.[field] ?? "";
  ctx.instance.settings = stored;
  return { settings: { instanceName: ctx.instance.name, settings: { ...ctx.body } } };
}

function find(ctx: RouteContext): unknown {
  const settings = ctx.instance.settings;
  if (!settings) return null;
  return Object.fromEntries(FIELDS.map((f) => [f, settings[f]]));
}

/** The 2 settings routes. */
export const SETTINGS_ROUTES: readonly RouteDef[] = [
  route(ROUTE.settings.set, set),
  route(ROUTE.settings.find, find),
];
