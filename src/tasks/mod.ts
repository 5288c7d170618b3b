/**
 * `@gw/gateway/tasks`: the scheduled work, one function each (prune old records, resend failed sends, settle
 * sends whose outcome is unknown), what they take and return, the schedulers' options and the cross-isolate
 * task lease. `registerScheduledTasks` and `createScheduledHandler` are also in the root
 * entry, which is where an application starts.
 *
 * @example Resend failed sends once, from a script
 * ```ts
 * import { GatewayService, MemoryStore } from "@gw/gateway";
 * import { retryFailedMessages } from "@gw/gateway/tasks";
 * const store = new MemoryStore();
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "...", store });
 * const result = await retryFailedMessages({ service: gw, store, limit: 10 });
 * console.log(result.sent, result.failed);
 * ```
 *
 * @module
 */

export { pruneOldRecords, type PruneOptions, type PruneResult } from "./prune.ts";
export {
  retryFailedMessages,
  type RetryFailedOptions,
  type RetryFailedResult,
  type RetryRecordResult,
  type RetryService,
  type RetrySkipReason,
} from "./retry_failed.ts";
export { createScheduledHandler, registerScheduledTasks } from "./schedule.ts";
export type {
  HandleScheduled,
  PruneTaskOptions,
  ReconcileSendsTaskOptions,
  RegisterScheduledTasksOptions,
  RetryFailedTaskOptions,
  ScheduledHandlerOptions,
  ScheduledTaskHandlers,
  ScheduledTasksBaseOptions,
} from "./schedule_options.ts";
export type { TaskLease } from "./task_lease.ts";
export { stateTaskLease, type StateTaskLeaseOptions } from "./state_lease.ts";
export type { FindMessagesClient, FoundMessage } from "./find_sent_message.ts";
export {
  type ReconcileRecordResult,
  reconcileSends,
  type ReconcileSendsOptions,
  type ReconcileSendsResult,
  type ReconcileService,
  type ReconcileUndecidedReason,
} from "./reconcile_sends.ts";
export { type ReconcileInboundTaskOptions } from "./reconcile_task.ts";
