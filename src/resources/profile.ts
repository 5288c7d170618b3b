/**
 * The instance's own profile and privacy: the profile routes under `/chat`.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { PRIVACY_VALUES, type PrivacySettings, PrivacySettingsDto } from "../dto/privacy_settings.ts";
import { isRecord } from "../util/json_shape.ts";
import { check, invalid } from "./args.ts";
import { readBody } from "../dto/body_spec.ts";
import {
  BUSINESS_PROFILE_BODY,
  PROFILE_LOOKUP_BODY,
  PROFILE_NAME_BODY,
  PROFILE_STATUS_BODY,
} from "./bodies.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import type { ProfileInfo, UpdateResult } from "./types.ts";

/**
 * Profile: read profiles, change the own name, status and picture, privacy settings.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.profile().updateName("Sales team");
 * console.log((await gw.profile().fetch()).json("name"));
 * ```
 */
export class ProfileResource extends Resource {
  /** A profile (`POST /chat/fetchProfile`); without `number`, the instance's own. */
  async fetch(number?: string, options?: CallOptions): Promise<ApiResponse<ProfileInfo>> {
    const body = readBody(PROFILE_LOOKUP_BODY, { number });
    return await this.call(ROUTE.chat.fetchProfile, { body }, options);
  }

  /** Same as {@link ProfileResource.fetch} (the route's name). */
  async fetchProfile(number?: string, options?: CallOptions): Promise<ApiResponse<ProfileInfo>> {
    return await this.fetch(number, options);
  }

  /** A business profile (`POST /chat/fetchBusinessProfile`). */
  async fetchBusinessProfile(
    number: string,
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const body = readBody(BUSINESS_PROFILE_BODY, { number });
    return await this.call(ROUTE.chat.fetchBusinessProfile, { body }, options);
  }

  /** Change the own display name (`POST /chat/updateProfileName`). */
  async updateName(name: string, options?: CallOptions): Promise<ApiResponse<UpdateResult>> {
    const body = readBody(PROFILE_NAME_BODY, { name });
    return await this.call(ROUTE.chat.updateProfileName, { body }, options);
  }

  /** Change the own status text (`POST /chat/updateProfileStatus`). */
  async updateStatus(status: string, options?: CallOptions): Promise<ApiResponse<UpdateResult>> {
    const body = readBody(PROFILE_STATUS_BODY, { status });
    return await this.call(ROUTE.chat.updateProfileStatus, { body }, options);
  }

  /** Change the own picture (`POST /chat/updateProfilePicture`; URL or raw base64). */
  async updatePicture(picture: string, options?: CallOptions): Promise<ApiResponse<UpdateResult>> {
    const valid = check("profile picture", (p) => p.media("picture", picture));
    return await this.call(ROUTE.chat.updateProfilePicture, {
      body: { picture: valid },
    }, options);
  }

  /** Remove the own picture (`DELETE /chat/removeProfilePicture`). */
  async removePicture(options?: CallOptions): Promise<ApiResponse<UpdateResult>> {
    return await this.call(ROUTE.chat.removeProfilePicture, {}, options);
  }

  /** The privacy settings (`GET /chat/fetchPrivacySettings`). */
  async fetchPrivacySettings(options?: CallOptions): Promise<ApiResponse<PrivacySettings>> {
    return await this.call(ROUTE.chat.fetchPrivacySettings, {}, options);
  }

  /**
   * Change privacy settings (`POST /chat/updatePrivacySettings`). The server needs all six; when only
   * some are given, the others are read first with `fetchPrivacySettings`.
   */
  async updatePrivacySettings(
    changes: Partial<PrivacySettings> | PrivacySettingsDto,
    options?: CallOptions,
  ): Promise<ApiResponse<{ update: string; data: PrivacySettings }>> {
    let dto: PrivacySettingsDto;
    if (changes instanceof PrivacySettingsDto) dto = changes;
    else {
      if (!isRecord(changes)) invalid("privacy settings", "request must be an object");
      const complete = Object.keys(PRIVACY_VALUES).every((name) =>
        changes[name as keyof PrivacySettings] !== undefined
      );
      let base: Record<string, unknown> = {};
      if (!complete) {
        const current = (await this.fetchPrivacySettings(options)).data;
        base = isRecord(current) ? current : {};
      }
      const merged: Record<string, unknown> = {};
      for (const name of Object.keys(PRIVACY_VALUES)) {
        merged[name] = changes[name as keyof PrivacySettings] ?? base[name];
      }
      dto = PrivacySettingsDto.from(merged as unknown as PrivacySettings);
    }
    return await this.call(ROUTE.chat.updatePrivacySettings, {
      body: dto.toJSON(),
    }, options);
  }
}
