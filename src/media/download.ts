/**
 * `downloadMedia`: bytes, MIME type and file name of received media (`getBase64FromMediaMessage`).
 *
 * @module
 */

import { ValidationException } from "../errors.ts";
import type { CallOptions } from "../resources/resource.ts";
import type { GatewayService } from "../service.ts";
import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import { fromBase64 } from "../util/base64.ts";

/** A received media message, downloaded. */
export interface DownloadedMedia {
  /** The file's bytes. */
  bytes: Uint8Array;
  /** MIME type, as the message declares it. */
  mimetype: string;
  /** File name: the document's own, else `<message id>.<extension>` as the server makes it. */
  fileName: string;
  /** `image`, `video`, `audio`, `document`, `sticker`, ... */
  mediaType: string;
  /** The caption, when the message has one. */
  caption?: string;
}

/** A message to download: a `messages.upsert` webhook payload, or a stored message `{ key, message }`. */
export type MediaMessageRef =
  | WebhookPayloadDto
  | { key: { id: string; [field: string]: unknown }; message?: Record<string, unknown>; instance?: string };

const MEDIA_KEY = /^(image|video|audio|document|sticker|ptv|documentWithCaption)Message$/;

function isPayload(value: MediaMessageRef): value is WebhookPayloadDto {
  return typeof (value as WebhookPayloadDto).dataObject === "object" &&
    typeof (value as WebhookPayloadDto).event === "string";
}

/**
 * Download a received media message. With a webhook payload the instance is the payload's; with a stored
 * message, the service's bound instance (or `message.instance`). The message content is sent along when
 * known, so the server can download media it did not store. Throws `ValidationException` before any
 * request when the message has no id or is plainly not media.
 *
 * @example In a webhook handler
 * ```ts
 * import { GatewayService, WebhookProcessor } from "@gw/gateway";
 * import { downloadMedia } from "@gw/gateway/media";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" });
 * new WebhookProcessor().on("messages.upsert", async (payload) => {
 *   if (payload.messageType === "imageMessage") {
 *     const file = await downloadMedia(gw, payload);
 *     console.log(file.mimetype, file.bytes.byteLength);
 *   }
 * });
 * ```
 */
export async function downloadMedia(
  service: GatewayService,
  ref: MediaMessageRef,
  options: CallOptions & { convertToMp4?: boolean } = {},
): Promise<DownloadedMedia> {
  const payload = isPayload(ref) ? ref : undefined;
  const key = payload ? payload.key : ref.key;
  const message = payload ? payload.message : (ref as { message?: Record<string, unknown> }).message;
  const instance = payload ? payload.instance : (ref as { instance?: string }).instance;
  if (key === undefined || typeof key.id !== "string" || key.id === "") {
    throw new ValidationException("Cannot download media: the message has no key.id", {
      messages: ["key.id is required"],
    });
  }
  if (message !== undefined && !Object.keys(message).some((name) => MEDIA_KEY.test(name))) {
    throw new ValidationException(
      `Cannot download media: message "${key.id}" is not a media message (${
        Object.keys(message).join(", ")
      })`,
      { messages: ["the message is not of a media type"] },
    );
  }
  const view = instance ? service.instance(instance) : service;
  const body = message === undefined ? { key } : { key, message };
  const res = await view.chats().getBase64FromMediaMessage(
    body as { key: { id: string } },
    options,
  );
  const data = (res.data ?? {}) as Record<string, unknown>;
  if (typeof data.base64 !== "string") {
    throw new ValidationException(`Cannot download media: the server returned no content for "${key.id}"`, {
      status: res.status,
      body: data,
      messages: ["no base64 in the answer"],
    });
  }
  const bytes = fromBase64(data.base64.replace(/\s+/g, ""));
  if (bytes === null) {
    throw new ValidationException(
      `Cannot download media: the server's content for "${key.id}" is not base64`,
      {
        status: res.status,
        messages: ["the base64 in the answer cannot be decoded"],
      },
    );
  }
  const result: DownloadedMedia = {
    bytes,
    mimetype: typeof data.mimetype === "string" ? data.mimetype : "application/octet-stream",
    fileName: typeof data.fileName === "string" ? data.fileName : key.id,
    mediaType: typeof data.mediaType === "string" ? data.mediaType : "unknown",
  };
  if (typeof data.caption === "string") result.caption = data.caption;
  return result;
}
