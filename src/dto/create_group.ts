/**
 * `CreateGroupDto`: the body of `POST /group/create/{instance}`.
 *
 * @module
 */

import { requireObject } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { CreateGroupDto } from "@gw/gateway";
   * CreateGroupDto.from({ subject: "Team", participants: ["5511999999999"], description: "Ours", promoteParticipants: true });
   * ```
   */
  static from(input: RequestInput<CreateGroupDto> | CreateGroupDto): CreateGroupDto {
    if (input instanceof CreateGroupDto) return input;
    const record = requireObject(input, "group creation");
    const problems = new Problems();
    const subject = problems.text("subject", record.subject, { required: true });
    const participants = readParticipants(problems, "participants", record.participants);
    const description = problems.text("description", record.description);
    const promoteParticipants = problems.bool("promoteParticipants", record.promoteParticipants);
    problems.throwIfAny("group creation");
    return new CreateGroupDto(
      compact({ subject: subject!, participants: participants!, description, promoteParticipants }),
    );
  }
}
