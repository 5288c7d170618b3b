/**
 * `CreateTemplateDto`: the body of `POST /template/create/{instance}` (WhatsApp Business instances).
 *
 * @module
 */

import { type BodySpec, readBody } from "./body_spec.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";

/** Template categories. */
export const TEMPLATE_CATEGORIES: readonly ["AUTHENTICATION", "MARKETING", "UTILITY"] = [
  "AUTHENTICATION",
  "MARKETING",
  "UTILITY",
];

/** The body of `/template/create` (at least one component, each an object). */
export const CREATE_TEMPLATE_BODY: BodySpec = {
  what: "template",
  fields: {
    name: { type: "string", required: true },
    category: { type: "string", required: true, values: TEMPLATE_CATEGORIES },
    allowCategoryChange: { type: "boolean" },
    language: { type: "string", required: true },
    components: { type: "array", required: true, minItems: 1, objectItems: true },
    webhookUrl: { type: "string" },
  },
};

/** The fields of a `CreateTemplateDto`: what `CreateTemplateDto.from` accepts, and (normalized) what it holds. */
export interface CreateTemplateDto {
  /** Template name. */
  readonly name: string;
  /** `AUTHENTICATION`, `MARKETING` or `UTILITY`. */
  readonly category: "AUTHENTICATION" | "MARKETING" | "UTILITY";
  /** Language code. */
  readonly language: string;
  /** At least one component (Meta's template components). */
  readonly components: Record<string, unknown>[];
  /** Let Meta change the category. */
  readonly allowCategoryChange?: boolean;
  /** Status callback URL. */
  readonly webhookUrl?: string;
}

/**
 * A validated template creation.
 *
 * @example
 * ```ts
 * import { CreateTemplateDto } from "@gw/gateway";
 * CreateTemplateDto.from({ name: "order", category: "UTILITY", language: "en_US", components: [{ type: "BODY", text: "Hi" }] });
 * ```
 */
export class CreateTemplateDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<CreateTemplateDto> | CreateTemplateDto): CreateTemplateDto {
    if (input instanceof CreateTemplateDto) return input;
    return new CreateTemplateDto(readBody(CREATE_TEMPLATE_BODY, input));
  }
}
