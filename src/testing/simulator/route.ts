/**
 * The shape of one simulated route and of the context its handler receives.
 *
 * @module
 */

import type { SimulatorCore } from "./core.ts";
import { internalArray } from "./errors.ts";
import type { InstanceState } from "./state.ts";
import type { RouteEntry } from "../../resources/routes.ts";

/** A `file` field of a multipart body. */
export interface UploadedFile {
  name: string;
  type: string;
  base64: string;
}

/** Everything a route handler gets. */
export interface RouteContext {
  core: SimulatorCore;
  request: Request;
  method: string;
  query: Record<string, string>;
  /** The JSON (or form) body as an object; `{}` when there is none. */
  body: Record<string, unknown>;
  /** The `apikey` header. */
  apikey: string | null;
  /** Decoded instance name from the path (empty for routes without one). */
  instanceName: string;
  /** The `{id}` segment of the route (a bot's or a credential's id), decoded; empty when it has none. */
  id: string;
  /** The instance; set for every route with an instance segment (the guard checked it exists). */
  instance: InstanceState;
  /** Multipart `file` field, when sent. */
  file?: UploadedFile;
}

/**
 * Who may call a route:
 * - `instance`: the instance must exist (404), then the global key or its own token (401);
 * - `global`: the global key only;
 * - `anyKey`: the global key or any instance token (`fetchInstances`);
 * - `none`: nobody is checked (the handler may check itself, like `create`).
 */
export type RouteAuth = "instance" | "global" | "anyKey" | "none";

/** One route of the simulated server. */
export interface RouteDef {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path without the instance segment, as in the contract; a record id before it is `{id}`. */
  path: string;
  /** Whether the last path segment is the instance name. */
  withInstance: boolean;
  /** Success status. */
  status: number;
  auth: RouteAuth;
  /** The row of the library's route table this route serves (none for `GET /` and `/verify-creds`). */
  row?: RouteEntry;
  handle(ctx: RouteContext): unknown;
}

/** The simulated route of a route row (verb, path, success status); `auth` defaults to the instance guard. */
export function route(
  row: RouteEntry,
  handle: (ctx: RouteContext) => unknown,
  auth: RouteAuth = "instance",
): RouteDef {
  const withInstance = row.path.endsWith("/{instance}");
  const path = withInstance ? row.path.slice(0, -"/{instance}".length) : row.path;
  return { method: row.method, path, withInstance, status: row.status, auth, row, handle };
}

/** `InternalServerErrorException(text, error.toString())` when the socket is not open. */
export function socketOr500(ctx: RouteContext, text: string, method?: string): void {
  const failure = ctx.core.socketErrorText(ctx.instance, method);
  if (failure) throw internalArray(text, failure);
}
