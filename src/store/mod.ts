/**
 * `@gw/gateway/store`: the contracts a store and a state backend implement, and the records they hold
 * (what a custom backend writes, and what an application reads back). The stores themselves (`MemoryStore`,
 * `KvStore`, `MemoryState`, `KvState`) are in the root entry.
 *
 * @example Read the records of failed sends
 * ```ts
 * import { MemoryStore } from "@gw/gateway";
 * import type { OutboundMessageRecord } from "@gw/gateway/store";
 * const store = new MemoryStore();
 * const failed: OutboundMessageRecord[] = await store.listOutbound({ status: "failed" });
 * ```
 *
 * @module
 */

export {
  type InboundMessageRecord,
  type InstanceSnapshot,
  type OutboundMessageRecord,
  type OutboundQuery,
  type OutboundStatus,
  type RecordKind,
  type WebhookLogRecord,
  type WebhookLogStatus,
} from "./store.ts";
export { type MemoryStoreOptions } from "../backends/memory/store.ts";
export { type KvStoreOptions } from "../backends/kv/store.ts";
export {
  type StateEntry,
  type StateListEntry,
  type StateListOptions,
  type StateSetOptions,
} from "./state.ts";
