/**
 * Message templates (`/template`; WhatsApp Business instances only).
 *
 * @module
 */

import type { RequestInput } from "../dto/request_dto.ts";
import type { ApiResponse } from "../client/response.ts";
import { CreateTemplateDto } from "../dto/create_template.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";

/**
 * Templates.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "meta" });
 * const templates = (await gw.templates().find()).data;
 * ```
 */
export class TemplatesResource extends Resource {
  /** Submit a template for approval (`POST /template/create`). */
  async create(
    template: RequestInput<CreateTemplateDto> | CreateTemplateDto,
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const dto = CreateTemplateDto.from(template);
    return await this.call(ROUTE.template.create, { body: dto.toJSON() }, options);
  }

  /** The instance's templates (`GET /template/find`). */
  async find(options?: CallOptions): Promise<ApiResponse<Record<string, unknown>[]>> {
    return await this.call(ROUTE.template.find, {}, options);
  }
}
