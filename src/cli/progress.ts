/**
 * A spinner and a progress bar that animate only on a terminal; elsewhere silent (no carriage returns).
 *
 * @module
 */

import type { CliIo } from "./io.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const CLEAR_LINE = "\r\x1b[2K";

/** A spinner on standard error with a changing label. */
export class Spinner {
  readonly #io: CliIo;
  #label: string;
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Build a spinner (not started). */
  constructor(io: CliIo, label: string) {
    this.#io = io;
    this.#label = label;
  }

  /** Whether the spinner draws anything (only on a terminal). */
  get active(): boolean {
    return this.#io.stderrIsTerminal;
  }

  /** Start animating (no-op off a terminal). */
  start(): this {
    if (!this.active || this.#timer !== undefined) return this;
    this.#draw();
    this.#timer = setInterval(() => this.#draw(), 80);
    return this;
  }

  /** Change the label. */
  update(label: string): void {
    this.#label = label;
    if (this.#timer !== undefined) this.#draw();
  }

  /** Stop and clear the line. */
  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#io.stderr(CLEAR_LINE);
  }

  #draw(): void {
    this.#frame = (this.#frame + 1) % FRAMES.length;
    this.#io.stderr(`${CLEAR_LINE}${FRAMES[this.#frame]} ${this.#label}`);
  }
}

/** A progress bar on standard error: `label [#####-----] 50/100`. Redraws at most every 50 ms. */
export class ProgressBar {
  readonly #io: CliIo;
  readonly #label: string;
  readonly #width: number;
  #lastDraw = 0;
  #drawn = false;

  /** Build a bar (draws on the first update). */
  constructor(io: CliIo, label: string, width: number = 30) {
    this.#io = io;
    this.#label = label;
    this.#width = width;
  }

  /** Show `done` of `total` (total unknown: a running count). */
  update(done: number, total?: number): void {
    if (!this.#io.stderrIsTerminal) return;
    const now = Date.now();
    if (this.#drawn && now - this.#lastDraw < 50 && done !== total) return;
    this.#lastDraw = now;
    this.#drawn = true;
    this.#io.stderr(CLEAR_LINE + renderBar(this.#label, done, total, this.#width));
  }

  /** Clear the bar's line. */
  done(): void {
    if (this.#drawn) this.#io.stderr(CLEAR_LINE);
    this.#drawn = false;
  }
}

/** The text of one progress bar frame. */
export function renderBar(label: string, done: number, total: number | undefined, width: number): string {
  if (total === undefined || total <= 0) return `${label} ${done}`;
  const filled = Math.min(width, Math.round((done / total) * width));
  return `${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`;
}
