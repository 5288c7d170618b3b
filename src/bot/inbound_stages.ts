/**
 * The bot's guarantees as `(ctx, next)` stages, added in this order before the middleware to the
 * processor's inbound middleware: `read`, `admit` (echoes, `groups`), `claim` (once per named update),
 * `debounce` (with `debounceMs`), `turn` (one update per chat, arrival order), `identify` (content-named
 * updates, inside the turn), `pause`, `echo` (replies sent while this update waited). A stage stops by not
 * calling `next`.
 *
 * @module
 */

import { WebhookException } from "../errors.ts";
import type { MiddlewareFn } from "../util/compose.ts";
import type { InboundContext } from "../webhooks/inbound_middleware.ts";
import type { InboundMessageClaims } from "../webhooks/message_claims.ts";
import type { WebhookProcessor } from "../webhooks/processor.ts";
import type { BotActions } from "./actions.ts";
import type { Bursts, TakenBurst } from "./burst.ts";
import type { ArrivalSlot, ChatLines } from "./chat_order.ts";
import type { ContentIdentity } from "./content_identity.ts";
import type { ChatPauses } from "./pauses.ts";
import { namedByServer } from "./update.ts";
import type { BotUpdate } from "./update_types.ts";

/** One update on its way to the bot's middleware: the processor's inbound context, with what the bot reads. */
export interface BotInbound extends InboundContext {
  /** The update, read once at its arrival (its chat id canonical); set by the `read` stage. */
  update: BotUpdate;
  /** Its place in its chat's line, taken when it arrived; set by the `read` stage. */
  slot: ArrivalSlot | undefined;
  /** The messages of its burst (`debounceMs`), when merged. */
  burst?: TakenBurst;
}

/**
 * A stage: go on with `next()`, or stop by returning without calling it. A stage with nothing to do returns
 * `next()` itself: no promise of its own on every update.
 */
export type InboundStage = MiddlewareFn<BotInbound>;

/** Stage `read`: the update as it was read when it arrived, and its place in its chat's line. */
export function readStage(processor: WebhookProcessor): InboundStage {
  return (ctx, next) =>
    processor.placed<BotUpdate>(ctx.payload).then((read) => {
      ctx.update = read.value;
      ctx.slot = read.place;
      return next();
    });
}

/** Stage `admit`: updates the bot does not take (its own echoes, groups it ignores) stop here. */
export function admitStage(admits: (ctx: BotInbound) => Promise<boolean>): InboundStage {
  return (ctx, next) => admits(ctx).then((admitted) => admitted ? next() : undefined);
}

/** Run `next` once for `update`; a 503 when another delivery holds it now (the server retries). */
async function once(
  claims: InboundMessageClaims,
  update: BotUpdate,
  next: () => Promise<void>,
): Promise<void> {
  if ((await claims.once(update.instance, `update:${update.id}`, next)) !== "busy") return;
  throw new WebhookException(`Cannot process update "${update.id}": another delivery is processing it`, {
    status: 503,
  });
}

/** Stage `claim`: a named update other than an inbound message (the processor's) runs once. */
export function claimStage(claims: () => InboundMessageClaims): InboundStage {
  return (ctx, next) => {
    if (ctx.payload.isInboundMessage || !namedByServer(ctx.payload, ctx.update)) return next();
    return once(claims(), ctx.update, next);
  };
}

/** Stage `debounce`: a message merged into a later one's burst stops here; the burst ends after. */
export function debounceStage(bursts: Bursts): InboundStage {
  return (ctx, next) => {
    const { update } = ctx;
    const chat = update.chat?.id;
    if (update.kind !== "message" || chat === undefined) return next();
    return inBurst(bursts, ctx, chat, next);
  };
}

async function inBurst(
  bursts: Bursts,
  ctx: BotInbound,
  chat: string,
  next: () => Promise<void>,
): Promise<void> {
  const { update } = ctx;
  const burst = await bursts.collect(update.instance, chat, update.msg!);
  if (burst === null) return; // merged into a later message's update
  ctx.burst = burst;
  await next();
  await burst.done();
}

/**
 * Stage `turn`: the update's turn in its chat's line, always left after, and only once its sends' ids are
 * noted, so the chat's next update (their echo) sees them.
 */
export function turnStage(order: ChatLines, actions: BotActions): InboundStage {
  return (ctx, next) => {
    const chat = ctx.update.chat?.id;
    if (chat === undefined) return next();
    return inTurn(order, actions, ctx, chat, next);
  };
}

async function inTurn(
  order: ChatLines,
  actions: BotActions,
  ctx: BotInbound,
  chat: string,
  next: () => Promise<void>,
): Promise<void> {
  const turn = await order.enter(ctx.update.instance, chat, ctx.slot);
  try {
    await next();
  } finally {
    await actions.settled();
    await turn.leave();
  }
}

/** Stage `identify`: an update the server does not name is named by its content, in its chat's turn. */
export function identifyStage(identity: ContentIdentity, claims: () => InboundMessageClaims): InboundStage {
  return (ctx, next) => {
    if (namedByServer(ctx.payload, ctx.update)) return next();
    return identified(identity, claims(), ctx, next);
  };
}

async function identified(
  identity: ContentIdentity,
  claims: InboundMessageClaims,
  ctx: BotInbound,
  next: () => Promise<void>,
): Promise<void> {
  await identity.identify(ctx.update, ctx.payload);
  await once(claims, ctx.update, next);
}

/** Stage `pause`: a paused chat's updates stop here. */
export function pauseStage(pauses: ChatPauses): InboundStage {
  return (ctx, next) => {
    const chat = ctx.update.chat?.id;
    if (chat === undefined) return next();
    return pauses.isPaused(chat).then((paused) => paused ? undefined : next());
  };
}

/** Stage `echo`: the echo of a reply the bot sent while this update waited for its turn stops here. */
export function echoStage(actions: BotActions): InboundStage {
  return (ctx, next) => {
    const { update } = ctx;
    if (update.kind !== "outgoing") return next();
    return actions.sentByBot(update.instance, update.msg!.id).then((own) => own ? undefined : next());
  };
}
