/**
 * What every send method shares: options types, the validated `MessageSend`, the two ways in made one.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import type { MessageOptions } from "../dto/message_options.ts";
import type { MediaInputOptions } from "../media/media_input.ts";
import type { RequestBody } from "../dto/request_dto.ts";
import { readTextBody, SendTextMessageDto, textBodyOf } from "../dto/text_message.ts";
import type { CallOptions, SendSpec } from "./resource.ts";
import { ROUTE, type RouteEntry } from "./routes.ts";
import type { SendMessageResponse } from "./types.ts";

/** The optional fields every message kind shares, in a send method's short form (call options come after). */
export type SendOptions = MessageOptions;

/** Extra fields of a media send (`image`, `video`, `document`). */
export interface MediaSendOptions extends SendOptions {
  /** MIME type. */
  mimetype?: string;
  /** File name (required for base64 documents). */
  fileName?: string;
}

/** Options of `MessagesResource.sendFile`: the media kind, an optional caption, send and call options. */
export type SendFileOptions = MediaInputOptions & SendOptions & { caption?: string };

/**
 * The answer of a send: the server's response, and with `resolve` the JID the message went to.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const res = await gw.messages().text("5511999998888", "Hi", {}, { resolve: true });
 * console.log(res.resolvedJid, res.recipientRewritten); // "551199998888@s.whatsapp.net" true
 * ```
 */
export interface SendResponse extends ApiResponse<SendMessageResponse> {
  /** With `resolve`: the JID the message was sent to. */
  readonly resolvedJid?: string;
  /** With `resolve`: true when that JID is not the number as given (a variant or a LID). */
  readonly recipientRewritten?: boolean;
}

/** A validated send: its route, body, recipient (for the send's key and pacing) and call options. */
export interface MessageSend {
  readonly route: RouteEntry;
  readonly body: Record<string, unknown>;
  readonly to: string;
  readonly call?: CallOptions;
  readonly vary?: Pick<SendSpec, "kind" | "bucket">;
}

/** The send of a validated request object to `route`, addressed to its `number`. */
export function sendOf(
  route: RouteEntry,
  valid: { readonly body: object },
  call: CallOptions | undefined,
  vary?: Pick<SendSpec, "kind" | "bucket">,
): MessageSend {
  const body = valid.body as Record<string, unknown>;
  return { route, body, to: body.number as string, call, vary };
}

/** A short form's request object: its `fields` over its `options` (the request's optional fields). */
export function shortForm(fields: object, options: object | undefined): object {
  return { ...options, ...fields };
}

/** `text(to, text, options?)` or `text(request, callOptions?)`; a plain text is read without a copy. */
export function textSend(
  first: string | SendTextMessageDto | RequestBody<SendTextMessageDto>,
  second?: string | CallOptions,
  options?: SendOptions,
  shortCall?: CallOptions,
): MessageSend {
  const route = ROUTE.message.sendText;
  if (typeof first !== "string") {
    const body = first instanceof SendTextMessageDto ? first.body : readTextBody(first);
    return { route, body, to: body.number, call: second as CallOptions | undefined };
  }
  const body = options === undefined
    ? textBodyOf(first, second)
    : readTextBody(shortForm({ number: first, text: second }, options));
  return { route, body, to: body.number, call: shortCall };
}
