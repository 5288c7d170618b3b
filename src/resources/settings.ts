/**
 * The instance's behaviour settings (`/settings/set`, `/settings/find`).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { type InstanceSettings, REQUIRED_SETTINGS, SettingsDto } from "../dto/settings.ts";
import { isRecord } from "../util/json_shape.ts";
import { invalid } from "./args.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import type { SettingsSetResponse } from "./types.ts";

/**
 * Settings: reject calls, ignore groups, always online, read receipts, history sync.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.settings().update({ rejectCall: true, msgCall: "Please send a message" });
 * ```
 */
export class SettingsResource extends Resource {
  /** The stored settings (`GET /settings/find`; `data` is null when never set). */
  async get(options?: CallOptions): Promise<ApiResponse<InstanceSettings | null>> {
    return await this.call(ROUTE.settings.find, {}, options);
  }

  /** Change settings (`POST /settings/set`); missing ones are read with `get()` (the server needs six). */
  async update(
    changes: Partial<InstanceSettings> | SettingsDto,
    options?: CallOptions,
  ): Promise<ApiResponse<SettingsSetResponse>> {
    let dto: SettingsDto;
    if (changes instanceof SettingsDto) dto = changes;
    else {
      if (!isRecord(changes)) invalid("settings", "request must be an object");
      const complete = REQUIRED_SETTINGS.every((name) => changes[name] !== undefined);
      let base: Record<string, unknown> = {};
      if (!complete) {
        const current = (await this.get(options)).data;
        base = isRecord(current) ? current : {};
      }
      const merged: Record<string, unknown> = {};
      for (const name of REQUIRED_SETTINGS) merged[name] = changes[name] ?? base[name] ?? false;
      for (const name of ["msgCall", "wavoipToken"] as const) {
        const value = changes[name] ?? base[name];
        if (value !== undefined && value !== null) merged[name] = value;
      }
      dto = SettingsDto.from(merged as unknown as InstanceSettings);
    }
    return await this.call(ROUTE.settings.set, { body: dto.toJSON() }, options);
  }
}
