/**
 * `@gw/gateway/delivery`: whether a message gets there. Addresses and phone numbers (recipients, senders,
 * LID pairs), message statuses and their tracker, the reconciliation of inbound messages missed while the
 * receiver was down, and the instance's health (disconnect reasons, the send breaker, server versions).
 *
 * @example Wait until a sent message is read
 * ```ts
 * import { GatewayService, MemoryStore } from "@gw/gateway";
 * import { MessageStatusTracker } from "@gw/gateway/delivery";
 * const store = new MemoryStore();
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "...", store });
 * const tracker = new MessageStatusTracker({ store });
 * ```
 *
 * @module
 */

export { parseRecipient, type Recipient, type RecipientKind } from "../address/recipient.ts";
export { type ResolvedSender, resolveSender } from "../address/sender.ts";
export {
  normalizePhone,
  type NormalizePhoneOptions,
  phoneMatchKey,
  phoneVariants,
} from "../address/phone.ts";
export { LidDirectory, type LidPair } from "../address/lid_directory.ts";
export { type ResolvedRecipient } from "../address/recipient_resolver.ts";
export {
  type MessageStatus,
  MessageStatusChanged,
  type MessageStatusRecord,
  MessageStuck,
  type StuckCause,
} from "./status_events.ts";
export {
  MessageStatusTracker,
  type MessageStatusTrackerOptions,
  type WaitForStatusOptions,
} from "./status_tracker.ts";
export { type MessageStatusUpdate } from "./status_updates.ts";
export {
  type ReconcileInboundInstanceResult,
  reconcileInboundMessages,
  type ReconcileInboundOptions,
  type ReconcileInboundResult,
  type ReconcileInboundService,
} from "./reconcile.ts";
export { type DisconnectKind, type DisconnectReason, disconnectReason } from "../health/disconnect_reason.ts";
export { InstanceHealth } from "../health/instance_health.ts";
export {
  type Admission,
  type BreakerState,
  type HealthSource,
  type InstanceHealthOptions,
  type InstanceHealthRecord,
  type InstanceHealthStatus,
  type InstanceRef,
} from "../health/health_types.ts";
export { watchInstanceHealth } from "../health/watch.ts";
export { type ServerDetails, type ServerFeatures, type ServerLine } from "../server/server_version.ts";
