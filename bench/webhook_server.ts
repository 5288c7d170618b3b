// One variant of the webhook load benchmark, served on 127.0.0.1:<port> until killed.
// Usage: deno run -A --unstable-kv bench/webhook_server.ts <variant> <port> [kv-dir] [reference-checkout]
import { createWebhookHandler, MetricsCollector, WebhookPayloadDto, WebhookProcessor } from "../mod.ts";
import { WebhookVerifier } from "../src/webhooks/verify/verifier.ts";
import { ReadDeadlines } from "../src/webhooks/pipeline/read_body.ts";
import { BODIES, respond } from "../src/webhooks/pipeline/respond.ts";
import { runWebhook } from "../src/webhooks/run.ts";
import { SECRET } from "./webhook_body.ts";
import { JSON_HEADERS, minimalCheck, minimalHandler, minimalVerify } from "./webhook_minimal.ts";

const [variant, portText, kvDir, referenceDir] = Deno.args;
const port = Number(portText);
const decoder = new TextDecoder();

let handler: (request: Request) => Promise<Response> | Response;
const noop = new WebhookProcessor({ log: false }).onAny(() => {});
switch (variant) {
  case "bare":
    handler = async (request) => {
      await request.arrayBuffer();
      return new Response("ok");
    };
    break;
  case "minimal":
    handler = minimalHandler;
    break;
  case "minimal_checks":
    // (b) plus the reads that ours' refusals need (the URL for 404, content-type for 415, content-length
    // for 413, the optional signed timestamp) and nothing else: under Deno.serve each is a call into Rust.
    handler = (request) => {
      void request.url;
      const headers = request.headers;
      void headers.get("content-type");
      void headers.get("content-length");
      void headers.get("x-gateway-timestamp");
      return minimalHandler(request);
    };
    break;
  case "steps_1":
  case "steps_2":
  case "steps_3":
  case "steps_4":
    handler = stepsHandler(Number(variant.slice(-1)));
    break;
  case "minimal_dedupe": {
    const seen = new Map<string, number>();
    handler = async (request) => {
      const checked = await minimalCheck(request);
      if (checked instanceof Response) return checked;
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", checked.body));
      const id = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
      if (seen.has(id)) return new Response('{"ok":true,"duplicate":true}', { headers: JSON_HEADERS });
      seen.set(id, Date.now());
      return new Response('{"ok":true}', { headers: JSON_HEADERS });
    };
    break;
  }
  case "minimal_queue": {
    const kv = await Deno.openKv(`${kvDir}/minimal.sqlite3`);
    kv.listenQueue((message) => void JSON.parse(decoder.decode(message as Uint8Array)));
    handler = async (request) => {
      const checked = await minimalCheck(request);
      if (checked instanceof Response) return checked;
      await kv.enqueue(checked.body);
      return new Response('{"ok":true,"queued":true}', { status: 202, headers: JSON_HEADERS });
    };
    break;
  }
  case "ours":
    handler = createWebhookHandler({ signature: { secret: SECRET }, processor: noop });
    break;
  case "reference": {
    // The same receiver from another checkout (`bench/webhook.ts --reference <dir>`), to compare two versions
    // within the same rounds: the machine's speed drifts too much between runs for a before/after of a few %.
    const other = await import(new URL(`file://${Deno.realPathSync(referenceDir)}/mod.ts`).href);
    const processor = new other.WebhookProcessor({ log: false }).onAny(() => {});
    handler = other.createWebhookHandler({ signature: { secret: SECRET }, processor });
    break;
  }
  case "ours_no_metrics":
    handler = createWebhookHandler({ signature: { secret: SECRET }, processor: noop, metrics: false });
    break;
  case "ours_dedupe":
    handler = createWebhookHandler({ signature: { secret: SECRET }, processor: noop, dedupe: true });
    break;
  case "ours_queue": {
    // The handler opens the KV itself and runs the worker in this process, as on Deno Deploy.
    handler = createWebhookHandler({
      signature: { secret: SECRET },
      processor: noop,
      queue: { enabled: true, path: `${kvDir}/ours.sqlite3` },
    });
    break;
  }
  default:
    throw new Error(`unknown variant "${variant}"`);
}

/**
 * The minimal handler with ours' work added one step at a time (each step keeps the ones before), to find
 * where ours' cost under load lies: 1 the body read with the size and time limits (`ReadDeadlines`); 2 the
 * verifier instead of one `crypto.subtle.verify`; 3 the payload, the handlers' dispatch and the metrics; 4
 * the route and content-type checks and the shared response.
 */
function stepsHandler(steps: number): (request: Request) => Promise<Response> {
  const deadlines = new ReadDeadlines(30_000);
  const verifier = new WebhookVerifier({ scheme: "auto", secret: SECRET });
  const metrics = new MetricsCollector();
  const routes = new Map<string, string>();
  return async (request) => {
    if (steps >= 4) {
      if (!routes.has(request.url)) routes.set(request.url, "sales");
      if (request.method !== "POST" || request.headers.get("content-type") !== "application/json") {
        return new Response(null, { status: 400 });
      }
    }
    const body = await deadlines.read(request, 1 << 20);
    if (typeof body === "number") return new Response(null, { status: body });
    const receivedAt = Date.now();
    if (steps >= 2) {
      try {
        await verifier.verify(body, request.headers, receivedAt);
      } catch {
        return new Response(null, { status: 401 });
      }
    } else if (!(await minimalVerify(body, request.headers))) return new Response(null, { status: 401 });
    const parsed = JSON.parse(decoder.decode(body));
    if (steps >= 3) {
      const payload = WebhookPayloadDto.from(parsed, { instance: "sales", receivedAt });
      if (payload === null) return new Response(null, { status: 400 });
      await runWebhook(noop, payload, { metrics, final: true, now: Date.now });
      metrics.webhookReceived(payload.event, "200");
    }
    return steps >= 4 ? respond(200, BODIES.ok) : new Response('{"ok":true}', { headers: JSON_HEADERS });
  };
}

Deno.serve({ hostname: "127.0.0.1", port, onListen: () => console.log("ready") }, handler);
// Exit cleanly on SIGINT so that `--cpu-prof` can write its profile.
Deno.addSignalListener("SIGINT", () => Deno.exit(0));
