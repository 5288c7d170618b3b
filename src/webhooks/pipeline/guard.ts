/**
 * Stage "guard": what is refused before the body is read. A receiver that cannot verify anything (no
 * usable secret) answers 503, so that the server keeps retrying while the operator fixes it (it treats a
 * 401 as final and drops the event), and says so once on stderr; then the content type (415). Internal.
 *
 * @module
 */

import { BODIES, count, refuse, respond, RETRY_AFTER } from "./respond.ts";
import { discardBody } from "./route.ts";
import type { Receiver, ReceiverStage, RequestState, SecretProblem } from "./state.ts";

/** The environment variable that holds the secret. */
export const SECRET_VARIABLE = "GATEWAY_WEBHOOK_SECRET";

/** The problem of a receiver whose scheme needs a secret and has none. */
export function missingSecret(
  scheme: string,
  cause: "unset" | "empty" | "permission",
): SecretProblem {
  const message = cause === "permission"
    ? `Webhook receiver misconfigured: ${SECRET_VARIABLE} cannot be read without permission; run Deno with ` +
      `--allow-env=${SECRET_VARIABLE} (every webhook is answered 503 until then)`
    : `Webhook receiver misconfigured: ${
      cause === "empty" ? "the secret is empty" : "no secret is set"
    } for the "${scheme}" scheme; set ${SECRET_VARIABLE} (or the signature.secret option), or choose the ` +
      `scheme "none" for local development (every webhook is answered 503 until then)`;
  return { cause, setting: SECRET_VARIABLE, message };
}

// One stderr line per cause per process: configuration errors must not stay silent when LogTape is not
// configured, and must not flood the log either.
const reported = new Set<string>();

/** Forget which causes were reported (tests). */
export function resetMisconfigurationReports(): void {
  reported.clear();
}

/** The 503 for a receiver that cannot work, reported once per cause on stderr. */
export function misconfigured(receiver: Pick<Receiver, "metrics">, problem: SecretProblem): Response {
  if (!reported.has(problem.cause)) {
    reported.add(problem.cause);
    console.error(`[gateway] ${problem.message}`);
  }
  count(receiver, "UNKNOWN", "503");
  receiver.metrics?.increment("gateway_webhook_rejections_total", {
    status: "503",
    reason: `misconfigured_${problem.cause}`,
  });
  const body = JSON.stringify({ ok: false, error: problem.message, setting: problem.setting });
  return respond(503, body, RETRY_AFTER);
}

function isJsonType(value: string | null): boolean {
  if (value === null) return false;
  if (value === "application/json" || value.startsWith("application/json;")) return true;
  const type = value.split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** The answer for a request refused before its body is read, or undefined to go on. */
function guardRefusal(receiver: Receiver, state: RequestState): Response | undefined {
  const request = state.request;
  if (receiver.secretProblem !== undefined) {
    discardBody(request);
    return misconfigured(receiver, receiver.secretProblem);
  }
  const type = request.headers.get("content-type");
  if (!isJsonType(type)) {
    discardBody(request);
    return refuse(
      receiver,
      415,
      BODIES.mediaType,
      "unsupported_media_type",
      `content type "${(type ?? "").slice(0, 64)}"`,
    );
  }
  return undefined;
}

/** Stage "guard": what is refused before the body is read is answered here; the rest goes on. */
export const guardStage: ReceiverStage = (state, next) => {
  const refused = guardRefusal(state.receiver, state);
  if (refused === undefined) return next();
  state.response = refused;
};
