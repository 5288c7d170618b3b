import { ApiResponse } from "../client/response.ts";
import { isOutcomeUnknown } from "./outcome.ts";
import { getGatewayLogger } from "../log.ts";
import {
  type IdempotencyClaim,
  type IdempotencyClaims,
  type IdempotencyScope,
  sendFingerprint,
} from "../store/idempotency.ts";
import type { SendStage } from "./types.ts";

/** The header a replayed answer carries (the name Stripe uses). */
export const REPLAYED_HEADER = "idempotent-replayed";

const log = getGatewayLogger("store");

/** Rebuild the first call's answer for a later call with the same key (the bot's actions too). */
export function replay(claim: IdempotencyClaim): ApiResponse<unknown> {
  const response = claim.response ?? { status: 201, body: null };
  const headers = new Headers({ [REPLAYED_HEADER]: "true" });
  return new ApiResponse(response.status, headers, response.body, 0, 0, { replayed: true });
}

/**
 * The claim stage (only for calls with an idempotency key): at most one send per (connection, instance, key)
 * within the claims' window; a later call replays the first answer, waits while it is in flight (`sleep`
 * between looks), and is refused while its outcome is unknown.
 */
export function claimStage(
  claims: IdempotencyClaims,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
): SendStage {
  return async (send, next) => {
    const scope: IdempotencyScope = { ...send.ref, key: send.idempotencyKey! };
    const acquired = await claims.acquire(scope, {
      fingerprint: sendFingerprint(send.route, send.body),
      recordId: crypto.randomUUID(),
      claimedUntil: send.claimedUntil,
    }, { deadlineAt: send.call.deadlineAt, signal: send.call.signal, sleep });
    if (acquired.kind === "done") {
      send.response = replay(acquired.claim);
      return;
    }
    if (acquired.kind !== "owner") throw new Error(`Unexpected idempotency claim state "${acquired.kind}"`);
    const settle = async (outcome: Parameters<IdempotencyClaims["settle"]>[2]) => {
      try {
        if (await claims.settle(scope, acquired.version, outcome, acquired.claim) === null) {
          log.warn("Cannot settle idempotency key {key}: the claim changed meanwhile", { key: scope.key });
        }
      } catch (error) {
        // The claim stays in flight until its `claimedUntil`, then reads as unknown: never a second send.
        log.warn("Cannot settle idempotency key {key}: {error}", { key: scope.key, error: String(error) });
      }
    };
    send.recordId = acquired.claim.recordId;
    send.reuseRecord = acquired.previous !== undefined;
    try {
      await next();
    } catch (error) {
      await settle({ state: isOutcomeUnknown(error) ? "unknown" : "released" });
      throw error;
    }
    const response = send.response!;
    const messageId = response.json<unknown>("key.id");
    await settle({
      state: "done",
      response: { status: response.status, body: response.data },
      ...(typeof messageId === "string" ? { messageId } : {}),
    });
  };
}
