/**
 * The reference server's error bodies. Its exception classes throw plain objects whose `message` is the
 * array of constructor arguments, and one Express handler wraps them as
 * `{status, error, response: {message}}`; a few routes bypass that handler (contract §3).
 *
 * @module
 */

/** Reason phrases the server's error handler uses. */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  409: "Conflict",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** A reply thrown by a route handler: status and the exact body. */
export class HttpError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** Body, sent as JSON. */
  readonly body: unknown;
  /** Extra response headers. */
  readonly headers?: Record<string, string>;

  constructor(status: number, body: unknown, headers?: Record<string, string>) {
    super(`Simulated gateway error ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/** A success reply whose status differs from the route's usual one. */
export class Reply {
  constructor(readonly status: number, readonly body: unknown) {}
}

/** `{status, error, response: {message}}`, the handler's envelope. */
export function envelope(status: number, message: unknown, error?: string): Record<string, unknown> {
  return { status, error: error ?? STATUS_TEXT[status] ?? "Internal Server Error", response: { message } };
}

/** `BadRequestException(...args)`: 400 whose message is the argument list. */
export function badRequest(...args: unknown[]): HttpError {
  return new HttpError(400, envelope(400, args));
}

/** `NotFoundException(...args)`: 404 whose message is the argument list. */
export function notFound(...args: unknown[]): HttpError {
  return new HttpError(404, envelope(404, args));
}

/** `ForbiddenException(...args)`: 403 whose message is the argument list. */
export function forbidden(...args: unknown[]): HttpError {
  return new HttpError(403, envelope(403, args));
}

/** `InternalServerErrorException(...args)`: 500 whose message is the argument list. */
export function internalArray(...args: unknown[]): HttpError {
  return new HttpError(500, envelope(500, args));
}

/** An uncaught JS or Baileys error: 500 whose message is a string. */
export function internalString(message: string): HttpError {
  return new HttpError(500, envelope(500, message));
}

/** The auth guard's 401, the one place where `message` is a string on a 4xx. */
export function unauthorized(): HttpError {
  return new HttpError(401, envelope(401, "Unauthorized"));
}

/** The instance guard's 404. */
export function instanceNotFound(name: string): HttpError {
  return notFound(`The "${name}" instance does not exist`);
}

/** Express's fallback for a route that does not exist. */
export function routeNotFound(method: string, url: string): HttpError {
  return notFound(`Cannot ${method.toUpperCase()} ${url}`);
}

/** `createMetaErrorResponse` (business and template routes): 400 in the Meta error shape. */
export function metaError(
  error: {
    message: string;
    code?: string | number;
    type?: string;
    error_subcode?: number;
    fbtrace_id?: string;
  },
  context: string,
  now: number,
): HttpError {
  return new HttpError(400, {
    status: 400,
    error: "Bad Request",
    message: error.message,
    details: {
      whatsapp_error: error.message,
      whatsapp_code: error.code ?? "UNKNOWN_ERROR",
      error_user_title: error.message,
      error_user_msg: error.message,
      error_type: error.type ?? "UNKNOWN",
      error_subcode: error.error_subcode ?? null,
      fbtrace_id: error.fbtrace_id ?? null,
      context,
      type: "whatsapp_api_error",
    },
    timestamp: new Date(now).toISOString(),
  });
}

/** A JSON response as Express's `res.json` sends it. */
export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>): Response {
  const text = body === undefined ? "" : JSON.stringify(body);
  return new Response(text, {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}
