/**
 * The request pipeline of the simulated server, in the reference server's order: body parsing (a
 * malformed JSON body fails before routing), fault injection, the optional license gate, routing
 * (Express-style: case-insensitive, trailing slash ignored, instance name last and percent-decoded),
 * the guards (instance exists → key), then the route handler.
 *
 * @module
 */

import type { SimulatorCore } from "./core.ts";
import {
  envelope,
  HttpError,
  instanceNotFound,
  internalString,
  jsonResponse,
  Reply,
  routeNotFound,
  unauthorized,
} from "./errors.ts";
import type { RouteContext, RouteDef, UploadedFile } from "./route.ts";
import { CHAT_ROUTES } from "./routes/chat.ts";
import { PROFILE_ROUTES } from "./routes/profile.ts";
import { GROUP_ROUTES } from "./routes/group.ts";
import { INSTANCE_ROUTES } from "./routes/instance.ts";
import { MESSAGE_ROUTES } from "./routes/message.ts";
import { MISC_ROUTES } from "./routes/misc.ts";
import { SETTINGS_ROUTES } from "./routes/settings.ts";
import { WEBHOOK_CONFIG_ROUTES } from "./routes/webhook_config.ts";
import { CHATBOT_ROUTES } from "./routes/chatbots.ts";
import { INTEGRATION_ROUTES } from "./routes/integrations.ts";
import type { RequestLogEntry } from "./types.ts";
import { toBase64 } from "../../util/base64.ts";
import { isRecord } from "../../util/json_shape.ts";
import { errorMessage } from "../../util/error_message.ts";

/** Every route the simulator serves: `GET /`, `POST /verify-creds` and the 165 routes of the table. */
export const ALL_ROUTES: readonly RouteDef[] = [
  ...INSTANCE_ROUTES,
  ...MESSAGE_ROUTES,
  ...CHAT_ROUTES,
  ...PROFILE_ROUTES,
  ...GROUP_ROUTES,
  ...WEBHOOK_CONFIG_ROUTES,
  ...SETTINGS_ROUTES,
  ...MISC_ROUTES,
  ...INTEGRATION_ROUTES,
  ...CHATBOT_ROUTES,
];

interface Match {
  def: RouteDef;
  /** Raw (still encoded) last segment, for routes with an instance. */
  segment?: string;
  /** Raw (still encoded) `{id}` segment, for routes with one. */
  id?: string;
}

interface ParsedBody {
  /** What the request log shows. */
  logged: unknown;
  /** The object handlers get. */
  body: Record<string, unknown>;
  file?: UploadedFile;
  /** body-parser's error message for a malformed JSON body. */
  error?: string;
}

async function fileOf(file: File): Promise<UploadedFile> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  return { name: file.name, type: file.type, base64: toBase64(bytes) };
}

async function parseBody(request: Request): Promise<ParsedBody> {
  if (request.body === null) return { logged: undefined, body: {} };
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const form = await request.formData();
    const fields: Record<string, unknown> = {};
    let file: UploadedFile | undefined;
    for (const [name, value] of form) {
      if (typeof value === "string") fields[name] = value;
      else if (name === "file") file = await fileOf(value);
    }
    return { logged: fields, body: fields, file };
  }
  const text = await request.text();
  if (type.includes("application/json") || type.includes("+json")) {
    if (text.trim() === "") return { logged: undefined, body: {} };
    const first = text.trim()[0];
    // body-parser's strict mode accepts only objects and arrays.
    if (first !== "{" && first !== "[") {
      return { logged: text, body: {}, error: `Unexpected token ${first} in JSON at position 0` };
    }
    try {
      const value = JSON.parse(text);
      return { logged: value, body: isRecord(value) ? value : {} };
    } catch (error) {
      return { logged: text, body: {}, error: (error as Error).message };
    }
  }
  if (type.startsWith("application/x-www-form-urlencoded")) {
    const fields = Object.fromEntries(new URLSearchParams(text));
    return { logged: fields, body: fields };
  }
  return { logged: text === "" ? undefined : text, body: {} };
}

/** Finds the route for a method and path. */
export class RouteTable {
  readonly #plain = new Map<string, RouteDef>();
  readonly #withInstance = new Map<string, RouteDef>();

  constructor(routes: readonly RouteDef[]) {
    for (const def of routes) {
      const key = `${def.method} ${def.path.toLowerCase()}`;
      (def.withInstance ? this.#withInstance : this.#plain).set(key, def);
    }
  }

  match(method: string, rawPath: string): Match | undefined {
    const path = rawPath.length > 1 ? rawPath.replace(/\/$/, "") : rawPath;
    const plain = this.#plain.get(`${method} ${path.toLowerCase()}`);
    if (plain) return { def: plain };
    const cut = path.lastIndexOf("/");
    if (cut <= 0) return undefined;
    const prefix = path.slice(0, cut);
    const segment = path.slice(cut + 1);
    if (segment === "") return undefined;
    const def = this.#withInstance.get(`${method} ${prefix.toLowerCase()}`);
    if (def) return { def, segment };
    // A record id before the instance (`/typebot/fetch/:typebotId/:instanceName`).
    const idCut = prefix.lastIndexOf("/");
    if (idCut <= 0 || idCut === prefix.length - 1) return undefined;
    const withId = this.#withInstance.get(`${method} ${prefix.slice(0, idCut).toLowerCase()}/{id}`);
    return withId ? { def: withId, segment, id: prefix.slice(idCut + 1) } : undefined;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function licenseResponse(core: SimulatorCore, origin: string): Response {
  const base = core.serverUrl ?? origin;
  return jsonResponse(503, {
    error: "service not activated",
    code: "LICENSE_REQUIRED",
    register_url: `${base}/license/register`,
    instance_id: core.serverId,
    docs_url: "https://doc.evolution-api.com/v2/en/license",
    message: "This server is not activated. Register it at register_url to use the API.",
  });
}

const LICENSE_EXEMPT = /^\/(health|server\/ok|license(\/|$)|manager|assets\/)/i;

function guard(core: SimulatorCore, def: RouteDef, ctx: RouteContext): void {
  const key = ctx.apikey;
  if (def.auth === "instance") {
    const instance = core.instances.get(ctx.instanceName);
    if (!instance) throw instanceNotFound(ctx.instanceName);
    if (!core.isGlobalKey(key) && key !== instance.token) throw unauthorized();
    ctx.instance = instance;
  } else if (def.auth === "global") {
    core.requireGlobalKey(key);
  } else if (def.auth === "anyKey") {
    if (!core.isGlobalKey(key) && ![...core.instances.values()].some((i) => i.token === key)) {
      throw unauthorized();
    }
  }
}

function toResponse(def: RouteDef, result: unknown): Response {
  if (result instanceof Response) return result;
  if (result instanceof Reply) return jsonResponse(result.status, result.body);
  return jsonResponse(def.status, result === undefined ? null : result);
}

/** The instance name of a route's `{instance}` segment, or the error the server answers when it is not valid. */
function decodeSegment(segment: string | undefined): { instanceName?: string; decodeError?: string } {
  if (segment === undefined) return {};
  try {
    return { instanceName: decodeURIComponent(segment) };
  } catch {
    return { decodeError: `Failed to decode param '${segment}'` };
  }
}

/** Handle one request against `core`. */
export async function handleRequest(
  core: SimulatorCore,
  table: RouteTable,
  request: Request,
): Promise<Response> {
  // Like fetch: an already aborted request never reaches the server.
  if (request.signal.aborted) throw request.signal.reason;
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const match = table.match(method, url.pathname);
  const parsed = await parseBody(request);
  const { instanceName, decodeError } = decodeSegment(match?.segment);
  const entry: RequestLogEntry = {
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: Object.fromEntries(request.headers),
    body: parsed.logged,
    route: match ? `${match.def.method} ${match.def.path}` : undefined,
    instance: instanceName,
  };
  core.requests.push(entry);

  const signal = AbortSignal.any([request.signal, core.signal]);
  const faulted = await core.faults.apply(
    { method, path: match ? match.def.path : url.pathname, instance: instanceName },
    signal,
  );
  if (faulted) return faulted;
  if (core.options.licenseRequired && url.pathname !== "/" && !LICENSE_EXEMPT.test(url.pathname)) {
    return licenseResponse(core, url.origin);
  }
  // Errors without an `error` field (body-parser, URI decoding) come out as "Internal Server Error".
  if (parsed.error) return jsonResponse(400, envelope(400, parsed.error, "Internal Server Error"));
  if (!match) {
    const notFound = routeNotFound(method, url.pathname + url.search);
    return jsonResponse(notFound.status, notFound.body);
  }
  if (decodeError) return jsonResponse(400, envelope(400, decodeError, "Internal Server Error"));
  const ctx: RouteContext = {
    core,
    request,
    method,
    query: entry.query,
    body: parsed.body,
    apikey: request.headers.get("apikey"),
    instanceName: instanceName ?? "",
    id: match.id === undefined ? "" : safeDecode(match.id),
    instance: undefined!,
    file: parsed.file,
  };
  return await runRoute(core, match.def, ctx);
}

/** The route's answer: its guard, then its handler; an error becomes the server's error answer. */
async function runRoute(core: SimulatorCore, def: RouteDef, ctx: RouteContext): Promise<Response> {
  try {
    guard(core, def, ctx);
    return toResponse(def, await def.handle(ctx));
  } catch (error) {
    if (error instanceof HttpError) return jsonResponse(error.status, error.body, error.headers);
    // What Express' handler does with an uncaught error.
    return jsonResponse(500, internalString(errorMessage(error)).body);
  }
}
