/**
 * Reading a gateway server's error body into readable messages.
 *
 * The reference server answers errors in several shapes (see the contract's error table): the usual
 * envelope `{status, error, response: {message}}` where `message` is a string, an array of strings, a nested
 * array of validation strings, or an array of `{property, message}` / `{jid, exists}` objects; some routes
 * skip the envelope entirely, and a proxy in front of it may answer with an HTML page.
 *
 * @module
 */

import { isRecord } from "../util/json_shape.ts";

/** Flatten any of the server's error shapes into readable strings. */
export function flattenErrorMessages(body: unknown): string[] {
  if (body === null || body === undefined) return [];
  if (typeof body === "string") return body.trim() === "" ? [] : [textExcerpt(body)];
  if (typeof body !== "object") return [String(body)];
  const record = body as Record<string, unknown>;
  if (Array.isArray(body)) return body.flatMap(flattenItem);
  if (record.response !== undefined && typeof record.response === "object" && record.response !== null) {
    const message = (record.response as Record<string, unknown>).message;
    if (message !== undefined) return flattenItem(message);
  }
  if (record.message !== undefined) return flattenItem(record.message);
  if (typeof record.error === "string") return [record.error];
  const boom = boomMessage(record);
  return boom === undefined ? [] : [boom];
}

/** A serialized Boom error (what Baileys throws), as some routes send it: `output.payload.message`. */
function boomMessage(record: Record<string, unknown>): string | undefined {
  const output = record.output;
  if (output === null || typeof output !== "object") return undefined;
  const payload = (output as { payload?: unknown }).payload;
  if (payload === null || typeof payload !== "object") return undefined;
  const message = (payload as { message?: unknown }).message;
  return typeof message === "string" ? message : undefined;
}

/** The `message` of a server envelope (`response.message`, else `message`), or a non-object body. */
export function envelopeMessage(body: unknown): unknown {
  if (isRecord(body)) {
    if (body.response !== null && typeof body.response === "object") {
      return (body.response as Record<string, unknown>).message;
    }
    return body.message;
  }
  return body;
}

const EXCERPT_CHARS = 200;
const HTML = /^\s*<(!doctype|html|head|body|title|\?xml)\b/i;

/**
 * A short, readable excerpt of a text body (a proxy's HTML error page, a stack trace): an HTML page becomes its
 * text without tags, whitespace is collapsed, and the result is cut to 200 characters followed by `…`, so an
 * error message never carries a whole page.
 */
export function textExcerpt(text: string, maxChars: number = EXCERPT_CHARS): string {
  let plain = text;
  if (HTML.test(text)) {
    plain = text
      .slice(0, 64 * 1024)
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
      .replace(/<[^>]*>/g, " ")
      .replace(/&nbsp;/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&");
  }
  plain = plain.replace(/\s+/g, " ").trim();
  if (plain.length <= maxChars) return plain;
  return `${plain.slice(0, maxChars)}…`;
}

function flattenItem(item: unknown): string[] {
  if (item === null || item === undefined) return [];
  if (typeof item === "string") return [item.length > 1000 ? textExcerpt(item, 1000) : item];
  if (Array.isArray(item)) return item.flatMap(flattenItem);
  if (typeof item === "object") {
    const record = item as Record<string, unknown>;
    if (typeof record.property === "string" && typeof record.message === "string") {
      return [`${record.property.replace(/^instance\.?/, "") || "body"}: ${record.message}`];
    }
    if (record.exists === false) {
      return [`${String(record.number ?? record.jid ?? "number")} is not on WhatsApp`];
    }
    if (typeof record.message === "string") return [record.message];
    return [JSON.stringify(item)];
  }
  return [String(item)];
}
