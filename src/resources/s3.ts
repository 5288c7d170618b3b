/**
 * Media the server stored in S3 (`/s3`).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { check } from "./args.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import { compact } from "../util/json_shape.ts";

/** The filter of `getMedia`. */
export interface S3MediaQuery {
  /** Media id. */
  id?: string;
  /** Media type. */
  type?: string;
  /** Message id. */
  messageId?: string;
}

/**
 * S3 media.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * console.log((await gw.s3().getMediaUrl({ id: "media-id", expiry: 3600 })).json("mediaUrl"));
 * ```
 */
export class S3Resource extends Resource {
  /** Stored media rows (`POST /s3/getMedia`). */
  async getMedia(query: S3MediaQuery = {}, options?: CallOptions): Promise<ApiResponse<unknown>> {
    const body = check("media query", (p) =>
      compact({
        id: p.text("id", query.id),
        type: p.text("type", query.type),
        messageId: p.text("messageId", query.messageId),
      }));
    return await this.call(ROUTE.s3.getMedia, { body }, options);
  }

  /** A presigned URL of stored media (`POST /s3/getMediaUrl`). */
  async getMediaUrl(
    query: { id: string; expiry?: number },
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const body = check("media url", (p) =>
      compact({
        id: p.text("id", query?.id, { required: true }),
        expiry: p.number("expiry", query?.expiry, { integer: true, min: 1 }),
      }));
    return await this.call(ROUTE.s3.getMediaUrl, { body }, options);
  }
}
