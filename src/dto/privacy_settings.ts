/**
 * `PrivacySettingsDto`: the body of `POST /chat/updatePrivacySettings/{instance}` (all six fields required).
 *
 * @module
 */

import { type BodySpec, readBody } from "./body_spec.ts";
import { RequestDto } from "./request_dto.ts";

/** Who may see or do something: the values of most privacy settings. */
export const PRIVACY_AUDIENCE: readonly ["all", "contacts", "contact_blacklist", "none"] = [
  "all",
  "contacts",
  "contact_blacklist",
  "none",
];
const AUDIENCE = PRIVACY_AUDIENCE;

/** The allowed values of each privacy setting. */
export const PRIVACY_VALUES: {
  readonly readreceipts: readonly ["all", "none"];
  readonly profile: typeof PRIVACY_AUDIENCE;
  readonly status: typeof PRIVACY_AUDIENCE;
  readonly online: readonly ["all", "match_last_seen"];
  readonly last: typeof PRIVACY_AUDIENCE;
  readonly groupadd: typeof PRIVACY_AUDIENCE;
} = {
  readreceipts: ["all", "none"],
  profile: AUDIENCE,
  status: AUDIENCE,
  online: ["all", "match_last_seen"],
  last: AUDIENCE,
  groupadd: AUDIENCE,
};

/** The six privacy settings. */
export interface PrivacySettings {
  /** Read receipts. */
  readreceipts: "all" | "none";
  /** Who sees the profile picture. */
  profile: "all" | "contacts" | "contact_blacklist" | "none";
  /** Who sees the status. */
  status: "all" | "contacts" | "contact_blacklist" | "none";
  /** Who sees "online". */
  online: "all" | "match_last_seen";
  /** Who sees "last seen". */
  last: "all" | "contacts" | "contact_blacklist" | "none";
  /** Who may add the account to groups. */
  groupadd: "all" | "contacts" | "contact_blacklist" | "none";
}

/** The body of `/chat/updatePrivacySettings`. */
export const PRIVACY_SETTINGS_BODY: BodySpec = {
  what: "privacy settings",
  requiredNotEmpty: true,
  fields: Object.fromEntries(
    Object.entries(PRIVACY_VALUES).map((
      [name, values],
    ) => [name, { type: "string", required: true, values }]),
  ),
};

/** The six settings, as readonly fields of a `PrivacySettingsDto`. */
export interface PrivacySettingsDto extends Readonly<PrivacySettings> {}

/**
 * Validated privacy settings.
 *
 * @example
 * ```ts
 * import { PrivacySettingsDto } from "@gw/gateway";
 * PrivacySettingsDto.from({ readreceipts: "all", profile: "contacts", status: "contacts", online: "all", last: "none", groupadd: "contacts" });
 * ```
 */
export class PrivacySettingsDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad or missing field. */
  static from(input: PrivacySettings | PrivacySettingsDto): PrivacySettingsDto {
    if (input instanceof PrivacySettingsDto) return input;
    return new PrivacySettingsDto(readBody(PRIVACY_SETTINGS_BODY, input) as unknown as PrivacySettings);
  }
}
