/**
 * A bot action's key means "this action of this update", whatever its body. The service refuses a reused
 * key with another body, which would wedge a chat whose retry answers differently (an LLM's text). So the
 * earlier send decides: done → its answer, replayed; released → key freed, retry's body sent; in flight
 * or unknown → `OutcomeUnknownException`, nothing sent.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { OutcomeUnknownException, ValidationException } from "../errors.ts";
import type { CallOptions } from "../resources/resource.ts";
import { replay } from "../send/claim.ts";
import type { GatewayService } from "../service.ts";
import { IDEMPOTENCY_NAMESPACE, IdempotencyClaims, type IdempotencyScope } from "../store/idempotency.ts";

/** Send once per key: the first answer for the key when it was sent already, whatever the body. */
export function sendOnce<T extends ApiResponse<unknown>>(
  api: GatewayService,
  key: string,
  send: (options: CallOptions) => Promise<T>,
  now: () => number,
): Promise<T> {
  let sent: Promise<T>;
  try {
    sent = send({ idempotencyKey: key });
  } catch (error) {
    return afterRefusal(api, key, send, now, error);
  }
  return sent.catch((error) => afterRefusal(api, key, send, now, error));
}

/** What the key's earlier send decides after `error` refused this one (see the top). */
async function afterRefusal<T extends ApiResponse<unknown>>(
  api: GatewayService,
  key: string,
  send: (options: CallOptions) => Promise<T>,
  now: () => number,
  error: unknown,
): Promise<T> {
  // Only a refusal made before any request can be the key's: the server's own 400 answers are the server's.
  if (!(error instanceof ValidationException) || error.status !== undefined) throw error;
  const state = api.getStore()?.state;
  // Without a store the service's claims are its own memory: its refusal stands.
  if (state === undefined) throw error;
  const scope: IdempotencyScope = {
    connection: api.getConnectionName(),
    instance: api.getInstanceName() ?? "",
    key,
  };
  const earlier = await new IdempotencyClaims(state, { now }).read(scope);
  if (earlier === null) throw error; // a request refused for itself (a bad body), not for its key
  const claim = earlier.value;
  if (claim.state === "done") return replay(claim) as T;
  if (claim.state === "released") {
    // Nothing went out under the key: free it (if still as read) so the retry's own body is sent.
    const stateKey = IdempotencyClaims.keyOf(scope);
    if (await state.delete(IDEMPOTENCY_NAMESPACE, stateKey, { expectedVersion: earlier.version })) {
      return await send({ idempotencyKey: key });
    }
    throw error;
  }
  throw new OutcomeUnknownException(key, {
    recordId: claim.recordId,
    inFlight: claim.state === "in_flight",
    connection: scope.connection,
    instance: scope.instance,
  });
}
