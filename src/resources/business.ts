/**
 * Business catalog and collections (`/business`).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { readBody } from "../dto/body_spec.ts";
import { CATALOG_BODY } from "./bodies.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";

/** The filter of the business routes. */
export interface CatalogQuery {
  /** Whose catalog (default: the own). */
  number?: string;
  /** Maximum items. */
  limit?: number;
}

function catalogBody(query: CatalogQuery): Record<string, unknown> {
  return readBody(CATALOG_BODY, { ...query });
}

/**
 * Business: product catalog and collections.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * console.log((await gw.business().getCatalog({ number: "5511999999999" })).json("catalogLength"));
 * ```
 */
export class BusinessResource extends Resource {
  /** A business catalog (`POST /business/getCatalog`). */
  async getCatalog(
    query: CatalogQuery = {},
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    return await this.call(ROUTE.business.getCatalog, {
      body: catalogBody(query),
    }, options);
  }

  /** A business's collections (`POST /business/getCollections`). */
  async getCollections(
    query: CatalogQuery = {},
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    return await this.call(ROUTE.business.getCollections, {
      body: catalogBody(query),
    }, options);
  }
}
