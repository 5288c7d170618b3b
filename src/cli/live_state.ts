/**
 * The live state of `fetchInstances` instances for `status` and `health`, as `connect` sees it.
 *
 * @module
 */

import { InstanceNotFoundException } from "../errors.ts";
import type { GatewayService } from "../service.ts";

/** A listed instance whose state may be replaced by the live one. */
export interface StateRow {
  /** Instance name. */
  name: string;
  /** The state, or null when none is known. */
  state: string | null;
}

/**
 * Replace each listed state that is not `open` by the instance's live state (`connectionState`), and record
 * the changed ones in the instance health. `fetchInstances` lists the stored rows, which the server writes
 * when a connection opens or closes: an instance whose socket is still connecting (waiting for a QR code)
 * is `close` there and `connecting` live, which is what `connect` sees. One request per instance not open.
 */
export async function readLiveStates(
  gw: GatewayService,
  connection: string,
  rows: StateRow[],
  timeoutMs: number,
): Promise<void> {
  const instances = gw.connection(connection).instances();
  for (const row of rows) {
    if (row.state === "open") continue;
    let state: string | undefined;
    try {
      const answer = await instances.connectionState(row.name, { timeoutMs, maxRetries: 0 });
      state = answer.json<string | undefined>("instance.state");
    } catch (error) {
      // Deleted between the two calls: its row is all there is.
      if (error instanceof InstanceNotFoundException) continue;
      throw error;
    }
    if (typeof state !== "string" || state === "" || state === row.state) continue;
    row.state = state;
    await gw.health().recordState({ connection, instance: row.name }, state, null);
  }
}
