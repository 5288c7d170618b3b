/**
 * Against the real gateway server (Evolution API 2.3.x), when GW_REAL_URL and GW_REAL_KEY are set: the server
 * signs one JWT per event and sends it again with every retry, for about twenty minutes. The receiver accepts
 * that genuine token after its `exp` (a retry at 650 s and 1,500 s from `iat`, on an injected clock) and
 * refuses it past `jwtMaxAgeSeconds`; a token made the way the server makes it, 650 s old, passes the live
 * receiver. With GW_REAL_SLOW=1 as well (about 11 to 17 minutes), the server's own retries are refused with a
 * 503 until their token is older than 660 s (past its `exp` and the leeway), and the one that comes back then
 * is accepted.
 */

import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { fromBase64Url, toBase64Url } from "../../src/webhooks/encoding.ts";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { generateWebhookSecret } from "../../src/webhooks/signature.ts";
import { NO_REAL_SERVER, realServerService } from "../helpers/real_server.ts";

interface Delivery {
  body: string;
  authorization: string;
  receivedAt: number;
}

function partOf(token: string, index: number): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(fromBase64Url(token.split(".")[index])!));
}

/** A token as the server makes it (`jsonwebtoken`, HS256, its four claims in its order), issued at `iat`. */
async function serverToken(secret: string, iat: number): Promise<string> {
  const part = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  const input = `${part({ alg: "HS256", typ: "JWT" })}.${
    part({ iat, exp: iat + 600, app: "evolution", action: "webhook" })
  }`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input)));
  return `Bearer ${input}.${toBase64Url(mac)}`;
}

/**
 * A loopback server in front of `receiver`: every delivery is recorded; `gate` may answer instead (the
 * server's retries), else the receiver answers.
 */
function frontServer(
  receiver: (request: Request) => Promise<Response>,
  gate: (delivery: Delivery) => Response | undefined = () => undefined,
) {
  const deliveries: Delivery[] = [];
  const answers: number[] = [];
  let arrived: () => void = () => {};
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const body = await request.text();
    const delivery = {
      body,
      authorization: request.headers.get("authorization") ?? "",
      receivedAt: Date.now(),
    };
    deliveries.push(delivery);
    const gated = gate(delivery);
    const response = gated ??
      await receiver(new Request(request.url, { method: "POST", headers: request.headers, body }));
    answers.push(response.status);
    arrived();
    return response;
  });
  const next = (timeoutMs: number, until: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nothing after ${timeoutMs} ms`)), timeoutMs);
      arrived = () => {
        if (!until()) return;
        clearTimeout(timer);
        resolve();
      };
      arrived();
    });
  return { server, deliveries, answers, next, url: `http://127.0.0.1:${server.addr.port}` };
}

Deno.test({
  name:
    "real server: its genuine JWT, retried after its exp (650 s, 1,500 s), is accepted; past 1,830 s refused; a 650 s old token made its way passes",
  ignore: NO_REAL_SERVER,
  async fn() {
    const secret = generateWebhookSecret("jwt");
    let handled = 0;
    const live = createWebhookHandler({
      signature: { secret },
      processor: new WebhookProcessor({ log: false }).onAny(() => void handled++),
    });
    const front = frontServer(live);
    const { name, gw } = realServerService("gw-jwt-retry");
    try {
      await gw.instances().create(name);
      await gw.webhooks().secure({
        url: `${front.url}/gateway/webhook/${name}`,
        events: ["CONNECTION_UPDATE"],
        secret,
      });
      await gw.instances().connect(name);
      // The bound is the server's (it sends CONNECTION_UPDATE while connecting), not a measurement.
      await front.next(60_000, () => front.deliveries.length > 0);
      const first = front.deliveries[0];
      strictEqual(front.answers[0], 200);
      const token = first.authorization.slice("Bearer ".length);
      deepStrictEqual(partOf(token, 0), { alg: "HS256", typ: "JWT" });
      const claims = partOf(token, 1);
      deepStrictEqual(Object.keys(claims), ["iat", "exp", "app", "action"]);
      const iat = claims.iat as number;
      deepStrictEqual(claims, { iat, exp: iat + 600, app: "evolution", action: "webhook" });
      // Our own signing of the same iat gives the server's token byte for byte.
      strictEqual(await serverToken(secret, iat), first.authorization);

      // The same request again, as the server's retries send it, on the receiver's clock.
      let clock = 0;
      let replayed = 0;
      const later = createWebhookHandler({
        signature: { secret },
        now: () => clock,
        processor: new WebhookProcessor({ log: false }).onAny(() => void replayed++),
      });
      const statuses: number[] = [];
      const errors: string[] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => void errors.push(args.map(String).join(" "));
      try {
        for (const after of [650, 667, 1_500, 1_830, 1_831, 1_880]) {
          clock = (iat + after) * 1000;
          const response = await later(
            new Request(`${front.url}/gateway/webhook/${name}`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: first.authorization },
              body: first.body,
            }),
          );
          statuses.push(response.status);
          await response.body?.cancel();
        }
      } finally {
        console.error = original;
      }
      deepStrictEqual(statuses, [200, 200, 200, 200, 401, 401]);
      strictEqual(replayed, 4);
      strictEqual(errors.length, 1, errors.join("\n"));
      ok(errors[0].includes("401 timestamp_too_old"), errors[0]);

      // A token made the way the server makes it, issued 650 s ago: the live receiver (real clock) takes it.
      const before = handled;
      const old = await fetch(`${front.url}/gateway/webhook/${name}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: await serverToken(secret, Math.floor(Date.now() / 1000) - 650),
        },
        body: first.body,
      });
      strictEqual(old.status, 200);
      await old.body?.cancel();
      strictEqual(handled, before + 1);
    } finally {
      await gw.instances().delete(name).catch(() => {});
      await front.server.shutdown();
      await live.close();
    }
  },
});

Deno.test({
  name:
    "real server (slow): its own retry with a token older than exp + leeway (660 s) is accepted after 503s",
  ignore: NO_REAL_SERVER || Deno.env.get("GW_REAL_SLOW") !== "1",
  async fn() {
    const secret = generateWebhookSecret("jwt");
    let handled = 0;
    const live = createWebhookHandler({
      signature: { secret },
      processor: new WebhookProcessor({ log: false }).onAny(() => void handled++),
    });
    const ageOf = (delivery: Delivery) =>
      Math.floor(delivery.receivedAt / 1000) - (partOf(delivery.authorization.slice(7), 1).iat as number);
    // A receiver that is "down" (503: the server retries) until the token of the request is past its exp and
    // the 30 s leeway (630 s: a receiver that honoured `exp` refused it from there), with a margin: 660 s.
    const front = frontServer(
      live,
      (delivery) => ageOf(delivery) <= 660 ? new Response('{"ok":false}', { status: 503 }) : undefined,
    );
    const { name, gw } = realServerService("gw-jwt-retry-slow");
    try {
      await gw.instances().create(name);
      await gw.webhooks().secure({
        url: `${front.url}/gateway/webhook/${name}`,
        events: ["CONNECTION_UPDATE"],
        secret,
      });
      await gw.instances().connect(name);
      // The server's 8th attempt comes about 615 s (±20 % of 300 s) after the first, its 9th about 915 s.
      // The bound is the server's schedule, not a measurement.
      await front.next(1_100_000, () => front.answers.includes(200));
      const index = front.answers.indexOf(200);
      const accepted = front.deliveries[index];
      const age = ageOf(accepted);
      ok(age > 660, `accepted at ${age} s`);
      ok(handled >= 1);
      // The accepted request carried a token the server had already sent, unchanged (a retry, not a new event).
      ok(
        front.deliveries.slice(0, index).some((delivery) =>
          delivery.authorization === accepted.authorization
        ),
        "the accepted token was sent before",
      );
      console.log(
        `real server retry accepted: token age ${age} s, after ${index} refused deliveries ` +
          `(ages ${front.deliveries.slice(0, index + 1).map(ageOf).join(", ")})`,
      );
    } finally {
      await gw.instances().delete(name).catch(() => {});
      await front.server.shutdown();
      await live.close();
    }
  },
});
