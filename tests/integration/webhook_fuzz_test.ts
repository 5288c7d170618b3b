/**
 * Generated bad input, reproducible from a fixed seed: thousands of malformed requests (random bytes,
 * truncated JSON, wrong types, odd paths, huge headers, bodies over the limit, bad signatures, wrong
 * methods and content types). Every one must get the expected 4xx, none may reach a handler, and nothing
 * may end as an unhandled rejection. Most run in-process; a share goes over real HTTP (fetch and raw TCP,
 * so that paths arrive byte for byte) to a `Deno.serve` on 127.0.0.1.
 */

import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

const SEED = 0x5eed_0006;
const SECRET = "fuzz-secret-0006";
const MAX_BODY = 2048;
const NOW_S = 1_760_000_000;

/** mulberry32: a small, fast, seedable PRNG (reproducible runs). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array | ReadableStream<Uint8Array>;
  expected: number;
}

const encoder = new TextEncoder();

function generator(seed: number) {
  const random = prng(seed);
  const int = (max: number) => Math.floor(random() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const bytes = (length: number) => Uint8Array.from({ length }, () => int(256));
  const envelope = () =>
    JSON.stringify({
      event: pick(["messages.upsert", "connection.update", "qrcode.updated", "send.message", "call"]),
      instance: pick(["sales", "support", "x"]),
      data: {
        key: { id: String(int(1e9)), remoteJid: `${int(1e12)}@s.whatsapp.net`, fromMe: random() < 0.5 },
      },
      date_time: new Date(NOW_S * 1000).toISOString(),
    });
  const sign = async (body: Uint8Array, secret = SECRET, timestamp = NOW_S) =>
    await signWebhook({ body, secret, timestamp });
  const route = () => `/gateway/webhook/${pick(["sales", "support", "inst-1"])}`;

  const badTypes = [
    "[]",
    "[1,2,3]",
    '"messages.upsert"',
    "42",
    "null",
    "true",
    "{}",
    '{"event":null}',
    '{"event":7}',
    '{"event":["messages.upsert"]}',
    '{"event":{"name":"x"}}',
    '{"event":""}',
    '{"event":"../../etc"}',
    '{"event":"messages upsert;drop"}',
    '{"event":"call","instance":12}',
    '{"event":"call","instance":{"a":1}}',
    '{"event":"call","instance":["a"]}',
    `{"event":"${"x".repeat(80)}"}`,
  ];
  const oddPaths = [
    "/gateway/webhook/..%2Fx",
    "/gateway/webhook/..%2f..%2fetc%2fpasswd",
    "/gateway/webhook/sales/..%2Fx",
    "/gateway/webhook/%2e%2e",
    "/gateway/webhook/%2E%2E/%2E%2E/x",
    "/gateway/webhook/a%00b",
    "/gateway/webhook/a%0Ab",
    "/gateway/webhook/a%5Cb",
    "/gateway/webhook/%FF%FE",
    "/gateway/webhook/%E0%A4%A",
    "/gateway/webhook/%",
    "/gateway/webhook/a/b/c",
    "/gateway/webhook/sales/not%20an%20event!",
    "/gateway/webhook/sales/messages-upsert/x",
    "/gateway/webhooks/sales",
    "/gateway/webhookX",
    "/gateway/sales",
    "/",
    "/webhook/sales",
    `/gateway/webhook/${"a".repeat(300)}`,
  ];

  return async (): Promise<Case> => {
    const choice = int(13);
    const body = encoder.encode(envelope());
    switch (choice) {
      case 0: { // random bytes, correctly signed: gets past the signature, not past JSON.parse
        const raw = bytes(1 + int(400));
        raw[0] = 0x80 + int(0x40); // never a JSON start
        return {
          kind: "random-bytes-signed",
          method: "POST",
          path: route(),
          headers: await sign(raw),
          body: raw,
          expected: 400,
        };
      }
      case 1: { // random bytes, random signature
        const raw = bytes(int(400));
        const headers = {
          "content-type": "application/json",
          "x-gateway-signature": [...bytes(32)].map((b) => b.toString(16).padStart(2, "0")).join(""),
        };
        return {
          kind: "random-bytes-unsigned",
          method: "POST",
          path: route(),
          headers,
          body: raw,
          expected: 401,
        };
      }
      case 2: { // truncated JSON
        const cut = body.slice(0, int(body.length));
        return {
          kind: "truncated-json",
          method: "POST",
          path: route(),
          headers: await sign(cut),
          body: cut,
          expected: 400,
        };
      }
      case 3: { // wrong types
        const raw = encoder.encode(pick(badTypes));
        return {
          kind: "wrong-types",
          method: "POST",
          path: route(),
          headers: await sign(raw),
          body: raw,
          expected: 400,
        };
      }
      case 4: // odd paths
        return {
          kind: "odd-path",
          method: "POST",
          path: pick(oddPaths),
          headers: await sign(body),
          body,
          expected: 404,
        };
      case 5: { // huge headers
        const size = 8_000 + int(64_000);
        const variant = int(3);
        const headers = await sign(body);
        if (variant === 0) headers["x-gateway-signature"] = "a".repeat(size);
        if (variant === 1) headers["x-gateway-timestamp"] = "9".repeat(size);
        if (variant === 2) headers["content-type"] = `text/${"x".repeat(size)}`;
        return {
          kind: "huge-header",
          method: "POST",
          path: route(),
          headers,
          body,
          expected: variant === 2 ? 415 : 401,
        };
      }
      case 6: { // over the limit, with a content-length
        const raw = encoder.encode(
          JSON.stringify({ event: "call", data: { blob: "x".repeat(MAX_BODY + int(50_000)) } }),
        );
        return {
          kind: "over-limit",
          method: "POST",
          path: route(),
          headers: await sign(raw),
          body: raw,
          expected: 413,
        };
      }
      case 7: { // over the limit, streamed without a content-length
        const chunks = 2 + int(20);
        const chunkSize = Math.ceil((MAX_BODY + 1) / 2) + int(500);
        let sent = 0;
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ >= chunks) controller.close();
            else controller.enqueue(new Uint8Array(chunkSize).fill(0x20));
          },
        });
        return {
          kind: "over-limit-streamed",
          method: "POST",
          path: route(),
          headers: await sign(body),
          body: stream,
          expected: 413,
        };
      }
      case 8: { // bad signatures
        const variant = int(7);
        let headers: Record<string, string>;
        if (variant === 0) headers = await sign(body, "wrong-secret");
        else if (variant === 1) headers = await sign(body, SECRET, NOW_S - 301 - int(100_000));
        else if (variant === 2) headers = await sign(body, SECRET, NOW_S + 301 + int(100_000));
        else {
          headers = await sign(body);
          const signature = headers["x-gateway-signature"];
          if (variant === 3) {
            const at = 7 + int(64);
            const flipped = signature[at] === "0" ? "1" : "0";
            headers["x-gateway-signature"] = signature.slice(0, at) + flipped + signature.slice(at + 1);
          }
          if (variant === 4) headers["x-gateway-signature"] = signature.replace("sha256=", "sha1=");
          if (variant === 5) delete headers["x-gateway-signature"];
          if (variant === 6) headers["x-gateway-timestamp"] = pick(["", "abc", "1.5", "-5", "0x10"]);
        }
        return {
          kind: `bad-signature-${variant}`,
          method: "POST",
          path: route(),
          headers,
          body,
          expected: 401,
        };
      }
      case 9: // tampered body after signing
      {
        const headers = await sign(body);
        const tampered = body.slice();
        tampered[int(tampered.length)] ^= 1 << int(7);
        return {
          kind: "tampered-body",
          method: "POST",
          path: route(),
          headers,
          body: tampered,
          expected: 401,
        };
      }
      case 10: // wrong method
        return {
          kind: "method",
          method: pick(["GET", "PUT", "DELETE", "PATCH", "OPTIONS"]),
          path: route(),
          headers: {},
          expected: 405,
        };
      case 11: { // wrong content type
        const headers = {
          ...(await sign(body)),
          "content-type": pick([
            "text/plain",
            "application/xml",
            "text/json",
            "multipart/form-data",
            "application/jsonp",
          ]),
        };
        return { kind: "content-type", method: "POST", path: route(), headers, body, expected: 415 };
      }
      default: { // bad content-length
        const headers = await sign(body);
        const variant = int(2);
        headers["content-length"] = variant === 0
          ? pick(["abc", "-1", "1e3", "12a"])
          : String(MAX_BODY + 1 + int(1e6));
        return {
          kind: `content-length-${variant}`,
          method: "POST",
          path: route(),
          headers,
          body,
          expected: variant === 0 ? 400 : 413,
        };
      }
    }
  };
}

function setup() {
  let reached = 0;
  const processor = new WebhookProcessor({ log: false }).onAny(() => void reached++);
  const handler = createWebhookHandler({
    signature: { secret: SECRET },
    processor,
    maxBodyBytes: MAX_BODY,
    dedupe: true,
    metrics: false,
    now: () => NOW_S * 1000,
  });
  return { handler, reached: () => reached };
}

function trackRejections(): { list: unknown[]; stop: () => void } {
  const list: unknown[] = [];
  const listener = (event: PromiseRejectionEvent) => {
    list.push(event.reason);
    event.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", listener);
  return { list, stop: () => globalThis.removeEventListener("unhandledrejection", listener) };
}

Deno.test("generated bad input in-process: 4000 malformed requests, each the expected 4xx, none handled", async () => {
  const rejections = trackRejections();
  const { handler, reached } = setup();
  try {
    const next = generator(SEED);
    const counts: Record<string, number> = {};
    for (let i = 0; i < 4000; i++) {
      const item = await next();
      const request = new Request(`http://127.0.0.1${item.path}`, {
        method: item.method,
        headers: item.headers,
        body: item.body as BodyInit | undefined,
      });
      const response = await handler(request);
      await response.body?.cancel();
      strictEqual(response.status, item.expected, `#${i} ${item.kind} ${item.path}`);
      ok(response.status >= 400 && response.status < 500);
      counts[item.kind.replace(/-\d$/, "")] = (counts[item.kind.replace(/-\d$/, "")] ?? 0) + 1;
    }
    strictEqual(reached(), 0);
    // The seed exercises every category.
    deepStrictEqual(Object.keys(counts).sort(), [
      "bad-signature",
      "content-length",
      "content-type",
      "huge-header",
      "method",
      "odd-path",
      "over-limit",
      "over-limit-streamed",
      "random-bytes-signed",
      "random-bytes-unsigned",
      "tampered-body",
      "truncated-json",
      "wrong-types",
    ]);
    // Let any stray rejection surface before checking.
    await new Promise((resolve) => setTimeout(resolve, 0));
    deepStrictEqual(rejections.list, []);
  } finally {
    rejections.stop();
    await handler.close();
  }
});

Deno.test("generated bad input over HTTP: fetch to Deno.serve on 127.0.0.1, each a 4xx, none handled", async () => {
  const rejections = trackRejections();
  const { handler, reached } = setup();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const next = generator(SEED + 1);
    for (let i = 0; i < 400; i++) {
      const item = await next();
      // fetch computes content-length itself and may drop a forged one; huge headers go over raw TCP below.
      if (item.kind.startsWith("content-length") || item.kind === "huge-header") continue;
      const response = await fetch(`${base}${item.path}`, {
        method: item.method,
        headers: item.headers,
        body: item.body as BodyInit | undefined,
      });
      await response.body?.cancel();
      ok(
        response.status >= 400 && response.status < 500,
        `#${i} ${item.kind} ${item.path}: ${response.status}`,
      );
      // fetch normalises some odd paths (dot segments) before sending: those are still 404s.
      strictEqual(response.status, item.expected, `#${i} ${item.kind} ${item.path}`);
    }
    strictEqual(reached(), 0);
    deepStrictEqual(rejections.list, []);
  } finally {
    await server.shutdown();
    await handler.close();
    rejections.stop();
  }
});

/** Send raw bytes and read until the response head is complete (or the server closes). */
async function rawRequest(port: number, head: string, body = new Uint8Array()): Promise<number | "closed"> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const message = new Uint8Array([...encoder.encode(head), ...body]);
    let written = 0;
    while (written < message.length) written += await connection.write(message.subarray(written));
    let text = "";
    const buffer = new Uint8Array(4096);
    const decoder = new TextDecoder();
    while (!text.includes("\r\n\r\n")) {
      const read = await connection.read(buffer).catch(() => null);
      if (read === null) break;
      text += decoder.decode(buffer.subarray(0, read), { stream: true });
    }
    const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
    return match === null ? "closed" : Number(match[1]);
  } finally {
    connection.close();
  }
}

Deno.test("bad input over raw TCP: paths byte for byte, huge and forged headers", async () => {
  const { handler, reached } = setup();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  try {
    const port = server.addr.port;
    const body = encoder.encode(JSON.stringify({ event: "call", instance: "sales", data: {} }));
    const signed = await signWebhook({ body, secret: SECRET, timestamp: NOW_S });
    const head = (path: string, extra: Record<string, string> = {}, length = body.length) =>
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-length: ${length}\r\n` +
      Object.entries({ ...signed, ...extra }).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
      "\r\n";
    const paths = [
      "/gateway/webhook/..%2Fx",
      "/gateway/webhook/../x",
      "/gateway/webhook/./sales/../../x",
      "/gateway/webhook/%2e%2e/%2e%2e/etc/passwd",
      "/gateway/webhook/sales/..%2F..%2F",
      "/gateway/webhook/a%00b",
      "/gateway/webhook/%C0%AE%C0%AE",
      "/gateway/webhook//",
      "//gateway/webhook/sales",
      "/gateway/webhook/sales?x=/../../",
    ];
    const statuses: (number | "closed")[] = [];
    for (const path of paths) statuses.push(await rawRequest(port, head(path), body));
    // "?x=..." is a query: the route is /gateway/webhook/sales, a valid signed webhook.
    deepStrictEqual(statuses, [404, 404, 404, 404, 404, 404, 404, 404, 404, 200]);
    strictEqual(reached(), 1);
    // A body longer than its declared length is cut there, so the signature no longer matches.
    strictEqual(await rawRequest(port, head("/gateway/webhook/sales", {}, body.length - 1), body), 401);
    strictEqual(await rawRequest(port, head("/gateway/webhook/sales", {}, MAX_BODY + 1), body), 413);
    strictEqual(
      await rawRequest(
        port,
        head("/gateway/webhook/sales", { "x-gateway-signature": "f".repeat(60_000) }),
        body,
      ),
      401,
    );
    // Headers past the server's own limit are refused by Deno's HTTP layer, before the handler.
    const huge = await rawRequest(
      port,
      head("/gateway/webhook/sales", { "x-filler": "y".repeat(1_000_000) }),
      body,
    );
    ok(huge === "closed" || (huge >= 400 && huge < 500), `huge headers: ${huge}`);
    strictEqual(reached(), 1);
  } finally {
    await server.shutdown();
    await handler.close();
  }
});

// --- forgeries against every scheme: 0 bypasses

const WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
type Scheme = "auto" | "hmac" | "standard" | "jwt" | "token";

/** The schemes a handler of `scheme` accepts, and the secret each is signed with. */
const SIGNERS: Record<Scheme, ("hmac" | "standard" | "jwt" | "token")[]> = {
  auto: ["hmac", "standard", "jwt"],
  hmac: ["hmac"],
  standard: ["standard"],
  jwt: ["jwt"],
  token: ["token"],
};

const b64url = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

/** One mutation of a validly signed request; each must turn it into a 401. */
function forgeries(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  // One character changed to another value: hex is read in either case, so a hex digit becomes another digit.
  const flip = (text: string, from = 0, hex = false) => {
    const at = from + Math.floor(random() * (text.length - from));
    const c = text[at];
    const alphabet = hex ? [..."0123456789abcdef"].filter((x) => x !== c.toLowerCase()) : [
      ..."0123456789abcdefABCDEF-_+/",
    ].filter((x) => x !== c);
    return text.slice(0, at) + pick(alphabet) + text.slice(at + 1);
  };
  return [
    ["flipped", (h: Record<string, string>) => {
      for (const name of ["authorization", "x-gateway-signature", "webhook-signature", "x-gateway-token"]) {
        if (name in h) {
          const skip = name === "authorization"
            ? h[name].lastIndexOf(".") + 1
            : name === "webhook-signature"
            ? 3
            : 0;
          h[name] = flip(h[name], name === "x-gateway-signature" ? 7 : skip, name === "x-gateway-signature");
        }
      }
    }],
    ["stripped", (h: Record<string, string>) => {
      for (const name of ["authorization", "x-gateway-signature", "webhook-signature", "x-gateway-token"]) {
        delete h[name];
      }
    }],
    ["swapped", (h: Record<string, string>) => {
      // The value moves to another scheme's header (an alias of the same scheme would still be valid).
      const names = ["authorization", "x-gateway-signature", "webhook-signature", "x-gateway-token"];
      const from = names.find((name) => name in h)!;
      const value = h[from];
      for (const name of names) delete h[name];
      const target = pick(names.filter((name) => name !== from));
      h[target] = target === "authorization" && !value.startsWith("Bearer") ? `Bearer ${value}` : value;
    }],
    ["alg-none", (h: Record<string, string>) => {
      const parts = (h.authorization ?? "Bearer a.b.c").slice(7).split(".");
      h.authorization = `Bearer ${b64url(JSON.stringify({ alg: pick(["none", "None", "HS512"]) }))}.${
        parts[1]
      }.${pick(["", parts[2]])}`;
      delete h["x-gateway-signature"];
      delete h["webhook-signature"];
    }],
    ["duplicated", (h: Record<string, string>) => {
      for (const name of ["authorization", "x-gateway-signature", "webhook-signature", "x-gateway-token"]) {
        if (name in h) h[name] = `${h[name]}, ${h[name]}`;
      }
    }],
  ] as const;
}

Deno.test("generated forgeries against every scheme (auto, hmac, standard, jwt, token): each a 401, none handled", async () => {
  const random = prng(SEED + 1);
  const mutations = forgeries(random);
  const body = encoder.encode(
    JSON.stringify({ event: "connection.update", instance: "sales", data: { state: "open" } }),
  );
  const counts: Record<string, number> = {};
  for (const scheme of ["auto", "hmac", "standard", "jwt", "token"] as const) {
    const secret = scheme === "standard" ? WHSEC : SECRET;
    let reached = 0;
    const handler = createWebhookHandler({
      signature: scheme === "auto" ? { secret: [SECRET, WHSEC] } : { scheme, secret },
      processor: new WebhookProcessor({ log: false }).onAny(() => void reached++),
      metrics: false,
      now: () => NOW_S * 1000,
    });
    const post = (headers: Record<string, string>, raw = body) =>
      handler(new Request("http://127.0.0.1/gateway/webhook/sales", { method: "POST", headers, body: raw }));
    const original = console.error;
    console.error = () => {};
    try {
      let accepted = 0;
      for (let i = 0; i < 300; i++) {
        const signer = SIGNERS[scheme][i % SIGNERS[scheme].length];
        const key = signer === "standard" ? WHSEC : SECRET;
        const wrong = i % 7 === 0;
        const age = i % 11 === 0 ? (signer === "jwt" ? 1_900 : 400) * (random() < 0.5 ? 1 : -1) : 0;
        const headers = await signWebhook({
          body,
          secret: wrong
            ? (signer === "standard"
              ? "whsec_" + btoa("another key 32 bytes long, yes!!")
              : "wrong-secret-xyz")
            : key,
          scheme: signer,
          timestamp: NOW_S - age,
        });
        if (!wrong && age === 0 && i % 5 === 0) {
          // Controls: the untouched request passes, so the refusals below are not vacuous.
          const response = await post(headers);
          strictEqual(response.status, 200, `${scheme}/${signer} control: ${await response.text()}`);
          accepted++;
          continue;
        }
        const [name, mutate] = wrong || age !== 0
          ? ["unmutated", () => {}] as const
          : pick(mutations, random);
        if (signer === "token" && name === "alg-none") continue;
        mutate(headers);
        const kind = `${scheme}/${signer}/${
          wrong ? "wrong-secret" : age !== 0 ? (age > 0 ? "expired" : "future") : name
        }`;
        const response = await post(headers);
        await response.body?.cancel();
        // A static token has no time, and Standard Webhooks lists several signatures (a copy of a valid one
        // is still valid): both are documented, not forgeries.
        if ((signer === "token" && age !== 0 && !wrong) || (signer === "standard" && name === "duplicated")) {
          strictEqual(response.status, 200, kind);
          accepted++;
          continue;
        }
        strictEqual(response.status, 401, kind);
        counts[kind] = (counts[kind] ?? 0) + 1;
      }
      strictEqual(reached, accepted, `${scheme}: only the controls reached the handlers`);
      ok(accepted > 0);
    } finally {
      console.error = original;
      await handler.close();
    }
  }
  // Every scheme met every kind of forgery.
  for (const scheme of ["auto", "hmac", "standard", "jwt"] as const) {
    for (const signer of SIGNERS[scheme]) {
      for (
        const kind of [
          "wrong-secret",
          "expired",
          "future",
          "flipped",
          "stripped",
          "swapped",
          "alg-none",
          "duplicated",
        ]
      ) {
        if (signer === "standard" && kind === "duplicated") continue;
        ok((counts[`${scheme}/${signer}/${kind}`] ?? 0) > 0, `${scheme}/${signer}/${kind} never generated`);
      }
    }
  }
});

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)];
}
