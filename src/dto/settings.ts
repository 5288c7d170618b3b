/**
 * `SettingsDto`: the body of `POST /settings/set/{instance}` (the server requires the full object).
 *
 * @module
 */

import { type BodySpec, type FieldSpec, readBody } from "./body_spec.ts";
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

/** The six booleans `/settings/set` requires. */
export const REQUIRED_SETTINGS: readonly [
  "rejectCall",
  "groupsIgnore",
  "alwaysOnline",
  "readMessages",
  "readStatus",
  "syncFullHistory",
] = ["rejectCall", "groupsIgnore", "alwaysOnline", "readMessages", "readStatus", "syncFullHistory"];

const BOOLEAN: FieldSpec = { type: "boolean" };
const TEXT: FieldSpec = { type: "string" };

/** The instance's behaviour settings, each optional (as instance creation takes them). */
export const SETTING_FIELDS: Readonly<Record<keyof InstanceSettings, FieldSpec>> = {
  rejectCall: BOOLEAN,
  msgCall: TEXT,
  groupsIgnore: BOOLEAN,
  alwaysOnline: BOOLEAN,
  readMessages: BOOLEAN,
  readStatus: BOOLEAN,
  syncFullHistory: BOOLEAN,
  wavoipToken: TEXT,
};

/** The body of `/settings/set`: the same fields, the six booleans required. */
export const SETTINGS_BODY: BodySpec = {
  what: "settings",
  requiredNotEmpty: true,
  fields: Object.fromEntries(
    Object.entries(SETTING_FIELDS).map((
      [name, field],
    ) => [name, field.type === "boolean" ? { ...field, required: true } : field]),
  ),
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
  /** Validate; throws `ValidationException` naming every bad or missing field. */
  static from(input: InstanceSettings | SettingsDto): SettingsDto {
    if (input instanceof SettingsDto) return input;
    return new SettingsDto(readBody(SETTINGS_BODY, input) as unknown as InstanceSettings);
  }
}
