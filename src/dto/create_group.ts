/**
 * `CreateGroupDto`: the body of `POST /group/create/{instance}`.
 *
 * @module
 */

import { type BodySpec, readBody, type ServerSchema } from "./body_spec.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import type { Problems } from "./validate.ts";

/** The fields of a `CreateGroupDto`: what `CreateGroupDto.from` accepts, and (normalized) what it holds. */
export interface CreateGroupDto {
  /** Group name. */
  readonly subject: string;
  /** At least one phone number (10+ digits) or JID. */
  readonly participants: string[];
  /** Group description. */
  readonly description?: string;
  /** Make the participants admins. */
  readonly promoteParticipants?: boolean;
}

/** Read a participants list (numbers of 10+ digits or JIDs), normalized. */
export function readParticipants(problems: Problems, field: string, value: unknown): string[] | undefined {
  const list = problems.array(field, value, { required: true, minItems: 1 });
  if (list === undefined) return undefined;
  const out = list.map((item, index) => problems.recipient(`${field}[${index}]`, item, { minDigits: 10 }));
  return out.every((item) => item !== undefined) ? out as string[] : undefined;
}

/** The server's shape of a participant list: 1+ distinct numbers of 10+ digits. */
export const PARTICIPANTS_SCHEMA: ServerSchema = {
  type: "array",
  minItems: 1,
  uniqueItems: true,
  items: {
    type: "string",
    minLength: 10,
    pattern: "\\d+",
    description: '"participants" must be an array of numeric strings',
  },
};

function refuseProfilePicture(problems: Problems, field: string, value: unknown): undefined {
  if (value !== undefined) {
    problems.add(`${field} is not read by the server when creating a group; set it after`);
  }
  return undefined;
}

/** The body of `/group/create` (the server lists `profilePicture` but never reads it: refused). */
export const CREATE_GROUP_BODY: BodySpec = {
  what: "group creation",
  fields: {
    subject: { type: "string", required: true, serverNotEmpty: true },
    description: { type: "string", serverNotEmpty: true },
    profilePicture: { type: "string", serverNotEmpty: true, read: refuseProfilePicture },
    promoteParticipants: { type: "boolean", strictBoolean: true },
    participants: { type: "array", required: true, read: readParticipants, server: PARTICIPANTS_SCHEMA },
  },
};

/**
 * A validated group creation.
 *
 * @example
 * ```ts
 * import { CreateGroupDto } from "@gw/gateway";
 * CreateGroupDto.from({ subject: "Team", participants: ["+55 11 99999-9999"] }).toJSON();
 * // { subject: "Team", participants: ["5511999999999"] }
 * ```
 */
export class CreateGroupDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<CreateGroupDto> | CreateGroupDto): CreateGroupDto {
    if (input instanceof CreateGroupDto) return input;
    return new CreateGroupDto(readBody(CREATE_GROUP_BODY, input));
  }
}
