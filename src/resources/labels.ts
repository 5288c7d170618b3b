/**
 * Chat labels (`/label`).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { readBody } from "../dto/body_spec.ts";
import { HANDLE_LABEL_BODY } from "./bodies.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import type { Label } from "./types.ts";

/**
 * Labels.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const labels = (await gw.labels().find()).data;
 * await gw.labels().handle("5511999999999", labels[0].id, "add");
 * ```
 */
export class LabelsResource extends Resource {
  /** Every label (`GET /label/findLabels`). */
  async find(options?: CallOptions): Promise<ApiResponse<Label[]>> {
    return await this.call(ROUTE.label.findLabels, {}, options);
  }

  /** Add a label to a chat or remove it (`POST /label/handleLabel`). */
  async handle(
    number: string,
    labelId: string,
    action: "add" | "remove",
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const body = readBody(HANDLE_LABEL_BODY, { number, labelId, action });
    return await this.call(ROUTE.label.handleLabel, { body }, options);
  }
}
