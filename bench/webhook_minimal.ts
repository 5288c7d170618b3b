// The hand-written baseline (b) of the webhook benchmarks: a cached Web Crypto key, a hex signature check and
// JSON.parse, nothing else.
import { SECRET } from "./webhook_body.ts";

const key = await crypto.subtle.importKey(
  "raw",
  new TextEncoder().encode(SECRET),
  { name: "HMAC", hash: "SHA-256" },
  false,
  ["verify"],
);
const decoder = new TextDecoder();

function hex(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length !== 64) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const byte = parseInt(text.slice(2 * i, 2 * i + 2), 16);
    if (Number.isNaN(byte)) return null;
    out[i] = byte;
  }
  return out;
}

/** Whether `body` carries a valid `x-gateway-signature` (hex HMAC-SHA256, `sha256=` optional). */
export async function minimalVerify(body: Uint8Array, headers: Headers): Promise<boolean> {
  const signature = hex((headers.get("x-gateway-signature") ?? "").replace(/^sha256=/, ""));
  return signature !== null &&
    await crypto.subtle.verify("HMAC", key, signature, body as Uint8Array<ArrayBuffer>);
}

/** Read, verify and parse a request: the raw body and the parsed JSON, or a 401 response. */
export async function minimalCheck(
  request: Request,
): Promise<{ body: Uint8Array<ArrayBuffer>; parsed: unknown } | Response> {
  const body = new Uint8Array(await request.arrayBuffer());
  if (!(await minimalVerify(body, request.headers))) return new Response("unauthorized", { status: 401 });
  return { body, parsed: JSON.parse(decoder.decode(body)) };
}

/** Content type of the JSON answers. */
export const JSON_HEADERS = { "content-type": "application/json" };

/** The minimal handler: verify, parse, answer 200. */
export async function minimalHandler(request: Request): Promise<Response> {
  const checked = await minimalCheck(request);
  return checked instanceof Response ? checked : new Response('{"ok":true}', { headers: JSON_HEADERS });
}
