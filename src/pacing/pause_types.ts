/** Why an instance's paced sending is paused. */
export type PauseReason =
  | "restricted"
  | "refused"
  | "disconnected"
  | "repeated_failures"
  | "daily_cap"
  | "stopped"
  | "manual";

/** A pause, as `SendPacer.status` reports it. */
export interface PacingPause {
  /** Why. */
  reason: PauseReason;
  /** One sentence for people. */
  message: string;
  /** When it started (epoch ms). */
  at: number;
  /** When it ends by itself (epoch ms; the daily cap), or absent: until `resume`. */
  until?: number;
}

/** An instance's pacing state. */
export interface PacingStatus {
  /** Last paced send (epoch ms), or null. */
  lastSentAt: number | null;
  /** Sends today (UTC). */
  sentToday: number;
  /** Today's cap (warm-up or `dailyCap`). */
  capToday: number;
  /** The pause in force, or null. */
  pause: PacingPause | null;
  /** Failed sends in a row. */
  consecutiveFailures: number;
}
