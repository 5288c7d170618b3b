/**
 * `SettingsDto`: the body of `POST /settings/set/{instance}` (the server requires the full object).
 *
 * @module
 */

import { requireObject } from "./message_options.ts";
import { RequestDto } from "./request_dto.ts";
import { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

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
    const record = requireObject(input, "settings");
    const problems = new Problems();
    const body: Record<string, unknown> = {};
    for (const name of REQUIRED_SETTINGS) body[name] = problems.bool(name, record[name], { required: true });
    body.msgCall = problems.text("msgCall", record.msgCall);
    body.wavoipToken = problems.text("wavoipToken", record.wavoipToken);
    problems.throwIfAny("settings");
    const ordered = {
      rejectCall: body.rejectCall,
      msgCall: body.msgCall,
      groupsIgnore: body.groupsIgnore,
      alwaysOnline: body.alwaysOnline,
      readMessages: body.readMessages,
      readStatus: body.readStatus,
      syncFullHistory: body.syncFullHistory,
      wavoipToken: body.wavoipToken,
    };
    return new SettingsDto(compact(ordered) as unknown as InstanceSettings);
  }
}
