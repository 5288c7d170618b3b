/**
 * Logging through LogTape. The library only creates loggers under the `gateway` category and never
 * configures sinks: it stays silent unless the application calls LogTape's `configure()`.
 *
 * @module
 */

import { getLogger as getLogTapeLogger, type Logger } from "@logtape/logtape";

/** The library's logger for a sub-category, e.g. `getGatewayLogger("client")` → `["gateway", "client"]`. */
export function getGatewayLogger(...category: string[]): Logger {
  return getLogTapeLogger(["gateway", ...category]);
}

const SECRET_KEY = /^(api_?key|apikey|authorization|token|hash|secret|password|jwt_key|.*_secret|.*_token)$/i;
const MEDIA_KEY = /^(base64|media|audio|video|sticker|picture|image|jpegThumbnail|file)$/i;
const MAX_STRING = 200;

/**
 * A copy of `value` that is safe to log: secrets replaced by `[REDACTED]`, long strings (base64 media)
 * truncated. Objects are walked to a bounded depth.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") {
    return value.length > MAX_STRING ? `${value.slice(0, 32)}…[${value.length} chars]` : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > 6) return "[…]";
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => redact(item, depth + 1));
  if (value instanceof Headers) return redact(Object.fromEntries(value), depth);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_KEY.test(key)) out[key] = "[REDACTED]";
    else if (MEDIA_KEY.test(key) && typeof item === "string" && item.length > 64) {
      out[key] = `${item.slice(0, 16)}…[${item.length} chars]`;
    } else out[key] = redact(item, depth + 1);
  }
  return out;
}
