/**
 * `@gw/gateway/webhooks`: the webhook receiver alone: the fetch handler, signature verification, the typed
 * payload, the processor and its handlers, queue mode and dedupe, with their types. The root entry
 * re-exports the part an application mounts (`handleWebhook`, `createWebhookHandler`, `WebhookProcessor`,
 * `AbstractWebhookHandler`, ...); verification for a server you route yourself, dead letters, dedupe
 * backends and the environment reader are here.
 *
 * @example Verify a request you route yourself
 * ```ts
 * import { verifyWebhook, WebhookVerificationException } from "@gw/gateway/webhooks";
 *
 * export async function onWebhook(request: Request): Promise<Response> {
 *   const body = new Uint8Array(await request.arrayBuffer());
 *   try {
 *     await verifyWebhook(body, request.headers, { scheme: "hmac", secret: "s3cret" });
 *   } catch (error) {
 *     if (error instanceof WebhookVerificationException) return new Response(null, { status: 401 });
 *     throw error;
 *   }
 *   return new Response(null, { status: 204 });
 * }
 * ```
 *
 * @module
 */

export {
  createWebhookHandler,
  handleWebhook,
  type WebhookExecutionContext,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerQueueOptions,
  type WebhookMiddleware,
  webhookProcessor,
} from "./handler.ts";
export {
  generateWebhookSecret,
  type RawWebhookBody,
  signWebhook,
  type SignWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookRejectReason,
  type WebhookSignatureScheme,
  type WebhookVerification,
  WebhookVerificationException,
  WebhookVerifier,
  type WebhookVerifyOptions,
} from "./signature.ts";
export { type WebhookPayloadContext, WebhookPayloadDto } from "./payload.ts";
export {
  type MessageOutcome,
  type WebhookHandlerFunction,
  WebhookProcessingException,
  WebhookProcessor,
  type WebhookProcessorOptions,
} from "./processor.ts";
export { AbstractWebhookHandler } from "./handler_base.ts";
export { LearnFromWebhook, LogWebhookEvent, ProcessIncomingMessage } from "./listeners.ts";
export {
  type NodeListenerOptions,
  type NodeRequestLike,
  type NodeResponseLike,
  toNodeListener,
} from "./node_listener.ts";
export {
  type DeadLetter,
  isProcessWebhookJob,
  listDeadLetters,
  type ProcessWebhookJob,
  requeueDeadLetter,
  runWebhookJob,
  settleWebhookJob,
  startWebhookWorker,
  type WebhookJobOutcome,
  type WebhookJobQueue,
  type WebhookJobSettler,
  type WebhookQueueOptions,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from "./queue.ts";
export {
  KvWebhookDedupe,
  MemoryWebhookDedupe,
  type WebhookDedupe,
  type WebhookDedupeOptions,
} from "./dedupe.ts";
export { type WebhookEnvOptions, webhookOptionsFromEnv } from "./env.ts";
