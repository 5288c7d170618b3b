/**
 * How `KvStore` keys each record kind: the tables' specs.
 *
 * Layout under the store's prefix (default `["gateway"]`), one `KvTable` per kind (see `table.ts`):
 *
 * | kind           | record key                          | index keys                                                                 |
 * | -------------- | ----------------------------------- | -------------------------------------------------------------------------- |
 * | `outbound`     | `rec, id`                           | `by_time, createdAt, id` · `by_status, status, createdAt, id` · `by_instance_status, instance, status, createdAt, id` |
 * | `inbound`      | `rec, instance, id`                 | `by_time, receivedAt, instance, id`                                        |
 * | `webhook_logs` | `rec, id`                           | `by_time, receivedAt, id` · `by_status, status, receivedAt, id`             |
 * | `instances`    | `rec, connection, instance`         | `by_time, updatedAt, connection, instance`                                 |
 *
 * Internal to the Deno KV store.
 *
 * @module
 */

import type {
  InboundMessageRecord,
  InstanceSnapshot,
  OutboundMessageRecord,
  WebhookLogRecord,
} from "../../store/store.ts";
import type { TableSpec } from "./table.ts";

/** Outbound records by id, indexed by time, status, and instance and status. */
export const OUTBOUND: TableSpec<OutboundMessageRecord> = {
  name: "outbound",
  label: "outbound",
  idLength: 1,
  id: (r) => [r.id],
  indexes: (r) => [
    ["by_time", r.createdAt, r.id],
    ["by_status", r.status, r.createdAt, r.id],
    ["by_instance_status", r.instance, r.status, r.createdAt, r.id],
  ],
  stubFields: ["id", "instance", "status", "createdAt"],
};

/** Inbound messages by instance and id, indexed by time. */
export const INBOUND: TableSpec<InboundMessageRecord> = {
  name: "inbound",
  label: "inbound",
  idLength: 2,
  id: (r) => [r.instance, r.id],
  indexes: (r) => [["by_time", r.receivedAt, r.instance, r.id]],
  stubFields: ["id", "instance", "receivedAt"],
};

/** Webhook logs by delivery id, indexed by time and by status. */
export const WEBHOOK_LOGS: TableSpec<WebhookLogRecord> = {
  name: "webhook_logs",
  label: "webhook log",
  idLength: 1,
  id: (r) => [r.id],
  indexes: (r) => [
    ["by_time", r.receivedAt, r.id],
    ["by_status", r.status, r.receivedAt, r.id],
  ],
  stubFields: ["id", "status", "receivedAt"],
};

/** Instance snapshots by connection and instance, indexed by time. */
export const INSTANCES: TableSpec<InstanceSnapshot> = {
  name: "instances",
  label: "instance snapshot",
  idLength: 2,
  id: (r) => [r.connection, r.instance],
  indexes: (r) => [["by_time", r.updatedAt, r.connection, r.instance]],
  stubFields: ["connection", "instance", "updatedAt"],
};
