/**
 * The instance's proxy (`/proxy/set`, `/proxy/find`).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { ProxyDto, type ProxyInput } from "../dto/proxy.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";

/**
 * Proxy.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.proxy().set({ host: "proxy.example.com", port: 3128, protocol: "http" });
 * ```
 */
export class ProxyResource extends Resource {
  /** Set the proxy (`POST /proxy/set`); the server tests it live (400 "Invalid proxy" when it fails). */
  async set(
    proxy: ProxyInput | ProxyDto,
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const dto = ProxyDto.from(proxy);
    return await this.call(ROUTE.proxy.set, { body: dto.toJSON() }, options);
  }

  /** The stored proxy (`GET /proxy/find`; `data` is null when none). */
  async find(options?: CallOptions): Promise<ApiResponse<Record<string, unknown> | null>> {
    return await this.call(ROUTE.proxy.find, {}, options);
  }
}
