/**
 * `CreateTemplateDto`: the body of `POST /template/create/{instance}` (WhatsApp Business instances).
 *
 * @module
 */

import { requireObject } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

/**
 * Template categories.
 *
 * @example
 * ```ts
 * import { TEMPLATE_CATEGORIES } from "./create_template.ts";
 * TEMPLATE_CATEGORIES.includes("UTILITY"); // true
 * ```
 */
export const TEMPLATE_CATEGORIES: readonly ["AUTHENTICATION", "MARKETING", "UTILITY"] = [
  "AUTHENTICATION",
  "MARKETING",
  "UTILITY",
];

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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { CreateTemplateDto } from "@gw/gateway";
   * CreateTemplateDto.from({ name: "promo", category: "MARKETING", language: "pt_BR", components: [{ type: "BODY", text: "Oi" }] });
   * ```
   */
  static from(input: RequestInput<CreateTemplateDto> | CreateTemplateDto): CreateTemplateDto {
    if (input instanceof CreateTemplateDto) return input;
    const record = requireObject(input, "template");
    const problems = new Problems();
    const name = problems.text("name", record.name, { required: true });
    const category = problems.oneOf("category", record.category, TEMPLATE_CATEGORIES, { required: true });
    const language = problems.text("language", record.language, { required: true });
    const components = problems.array("components", record.components, { required: true, minItems: 1 });
    components?.forEach((item, index) => problems.object(`components[${index}]`, item, { required: true }));
    const allowCategoryChange = problems.bool("allowCategoryChange", record.allowCategoryChange);
    const webhookUrl = problems.text("webhookUrl", record.webhookUrl);
    problems.throwIfAny("template");
    return new CreateTemplateDto(
      compact({
        name: name!,
        category: category!,
        language: language!,
        components: components as Record<string, unknown>[],
        allowCategoryChange,
        webhookUrl,
      }),
    );
  }
}
