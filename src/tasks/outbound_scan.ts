/**
 * `scanOutbound`: every outbound record of one status, oldest first, a page at a time. The scheduled tasks
 * (expiring stale claims, reconciling and retrying sends) walk the store this way; paging past the records
 * they skip keeps a backlog of those from hiding newer ones.
 *
 * @module
 */

import type { GatewayStore, OutboundMessageRecord, OutboundStatus } from "../store/store.ts";

const PAGE_SIZE = 100;

/** What {@link scanOutbound} walks. */
export interface OutboundScan {
  /** Records of this status. */
  status: OutboundStatus;
  /** Only records of this instance. */
  instance?: string;
  /** No further page is read once this aborts. */
  signal?: AbortSignal;
}

/**
 * The records of `scan.status`, oldest first; stop early with `break`. Each page starts after the last
 * record read (by creation time and id), so a record updated meanwhile is neither read twice nor skipped.
 */
export async function* scanOutbound(
  store: GatewayStore,
  scan: OutboundScan,
): AsyncGenerator<OutboundMessageRecord, void, undefined> {
  let cursor: { createdAt: number; id: string } | undefined;
  while (!scan.signal?.aborted) {
    const page = await store.listOutbound({
      status: scan.status,
      instance: scan.instance,
      limit: PAGE_SIZE,
      startAfter: cursor,
    });
    for (const record of page) {
      cursor = { createdAt: record.createdAt, id: record.id };
      yield record;
    }
    if (page.length < PAGE_SIZE) return;
  }
}
