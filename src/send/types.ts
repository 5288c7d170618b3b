import type { PreparedRequest } from "../client/prepared_request.ts";
import type { ApiResponse } from "../client/response.ts";
import type { InstanceRef } from "../health/health_types.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import type { MiddlewareFn } from "../util/compose.ts";

/** One message send, resolved once when it enters the pipeline, and on the way back its answer. */
export interface SendContext {
  /** Route template, e.g. `/message/sendText/{instance}`. */
  route: string;
  /** Message kind for metrics, the store and `MessageSent`: `text`, `media`, `audio`, ... */
  type: string;
  /** The JSON body. */
  body: Record<string, unknown>;
  /** Recipient as given (`number`, or the reaction's `key.remoteJid`). */
  to: string;
  /** Rate-limit bucket. */
  bucket: RateLimitBucket;
  /** The request: connection, instance, deadline and server delay, resolved once. */
  call: PreparedRequest;
  /** The connection and instance, for the breaker and the claims. */
  ref: InstanceRef;
  /** The caller's idempotency key. */
  idempotencyKey?: string;
  /** Until when the send may hold its claim and its `pending` record (epoch ms). */
  claimedUntil: number;
  /** The outbound record's id: the claim's (one key keeps one record), else new. */
  recordId?: string;
  /** True when the claim took over a released one: its record is moved back to `pending`, not created. */
  reuseRecord?: boolean;
  /** Set by the guard: the instance was known open with no failure, so a success has nothing to heal. */
  healthClean?: boolean;
  /** The server's answer, set by the request (or a replay) and seen by the stages on the way back. */
  response?: ApiResponse<unknown>;
}

/** One stage: sees the outcome on the way back (`ctx.response`, or the error `next()` rejected with). */
export type SendStage = MiddlewareFn<SendContext>;

/** Time after the request's deadline for the pipeline to record its outcome before the claim ends. */
export const CLAIM_SLACK_MS = 30_000;
