/**
 * Call offers (`/call/offer`).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { CallOfferDto } from "../dto/call_offer.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";

/**
 * Calls.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.calls().offer("5511999999999", { callDuration: 5 });
 * ```
 */
export class CallsResource extends Resource {
  /** Offer a call ringing `callDuration` seconds, 1–15 (`POST /call/offer`; a stub on the server). */
  async offer(
    number: string,
    offer: { callDuration: number; isVideo?: boolean },
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const dto = CallOfferDto.from({ ...offer, number });
    return await this.call(ROUTE.call.offer, { body: dto.toJSON() }, options);
  }
}
