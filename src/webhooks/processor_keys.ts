/** Key of the processor's internal fast path (used by the handler and the queue worker). */
export const PROCESS: unique symbol = Symbol("gateway.webhook.process");

/** Key of the processor's arrival step (used by the receiver): the update takes its place in its line. */
export const ARRIVE: unique symbol = Symbol("gateway.webhook.arrive");

/** Key of the processor's inbound-message path that says what happened (used by the reconciler). */
export const PROCESS_MESSAGE: unique symbol = Symbol("gateway.webhook.processMessage");

/** What {@link PROCESS_MESSAGE} did with an inbound message. */
export type MessageOutcome = "processed" | "duplicate" | "busy";
