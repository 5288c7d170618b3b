/**
 * `SettingsDto`: the body of `POST /settings/set/{instance}` (the server requires the full object).
 *
 * @module
 */

import { type BodySpec, readBody } from "./body_spec.ts";
import { RequestDto } from "./request_dto.ts";

/** The behaviour settings of an instance. */
export interface InstanceSettings {
  /** Reject incoming calls. */
  rejectCall: boolean;
  /** Message sent to rejected callers. */
  msgCall?: string;
  /** Ignore group messages. */
  groupsIgnore: boolean;
  /** Always appear online. */
  alwaysOnline: boolean;
  /** Mark incoming messages read. */
  readMessages: boolean;
  /** Mark statuses seen. */
  readStatus: boolean;
  /** Sync the full history on connect. */
  syncFullHistory: boolean;
  /** Wavoip token. */
  wavoipToken?: string;
}

/**
 * The six booleans `/settings/set` requires.
 *
 * @example
 * ```ts
 * import { REQUIRED_SETTINGS } from "./settings.ts";
 * REQUIRED_SETTINGS.length; // 6
 * ```
 */
export const REQUIRED_SETTINGS: readonly [
  "rejectCall",
  "groupsIgnore",
  "alwaysOnline",
  "readMessages",
  "readStatus",
  "syncFullHistory",
] = ["rejectCall", "groupsIgnore", "alwaysOnline", "readMessages", "readStatus", "syncFullHistory"];

/** The body of `/settings/set`. */
export const SETTINGS_BODY: BodySpec = {
  what: "settings",
  requiredNotEmpty: true,
  fields: {
    rejectCall: { type: "boolean", required: true },
    msgCall: { type: "string" },
    groupsIgnore: { type: "boolean", required: true },
    alwaysOnline: { type: "boolean", required: true },
    readMessages: { type: "boolean", required: true },
    readStatus: { type: "boolean", required: true },
    syncFullHistory: { type: "boolean", required: true },
    wavoipToken: { type: "string" },
  },
};

/** The settings, as readonly fields of a `SettingsDto`. */
export interface SettingsDto extends Readonly<InstanceSettings> {}

/**
 * Validated instance settings (all six booleans required).
 *
 * @example
 * ```ts
 * import { SettingsDto } from "@gw/gateway";
 * SettingsDto.from({
 *   rejectCall: true, msgCall: "Busy", groupsIgnore: false, alwaysOnline: false,
 *   readMessages: false, readStatus: false, syncFullHistory: false,
 * });
 * ```
 */
export class SettingsDto extends RequestDto {
  /**
   * Validate; throws `ValidationException` naming every bad or missing field.
   *
   * @example
   * ```ts
   * import { SettingsDto } from "@gw/gateway";
   * SettingsDto.from({ rejectCall: false, groupsIgnore: true, alwaysOnline: true, readMessages: false, readStatus: false, syncFullHistory: false });
   * ```
   */
  static from(input: InstanceSettings | SettingsDto): SettingsDto {
    if (input instanceof SettingsDto) return input;
    return new SettingsDto(readBody(SETTINGS_BODY, input) as unknown as InstanceSettings);
  }
}
