/**
 * A FIFO of (key, expiry time) pairs for the in-memory structures that drop expired entries: entries of
 * one lifetime are pushed in expiry order, so the expired ones are always at the front. Internal.
 *
 * A Map's own front cannot be popped in constant time (V8 leaves deleted entries in place and iteration
 * skips them one by one), so the queue is a pair of arrays read from a moving head, copied down once the
 * consumed part is as long as the rest: amortized constant time per item.
 *
 * @module
 */

/** Keys with their expiry times, oldest first. */
export class ExpiryQueue {
  #keys: string[] = [];
  #times: number[] = [];
  #head = 0;

  /** Items not yet shifted. */
  get length(): number {
    return this.#keys.length - this.#head;
  }

  /** The oldest key, or undefined when empty. */
  get frontKey(): string | undefined {
    return this.#keys[this.#head];
  }

  /** The oldest item's time (NaN when empty). */
  get frontTime(): number {
    return this.#head < this.#keys.length ? this.#times[this.#head] : Number.NaN;
  }

  /** Add an item at the back. */
  push(key: string, time: number): void {
    this.#keys.push(key);
    this.#times.push(time);
  }

  /** Drop the oldest item. */
  shift(): void {
    if (this.#head >= this.#keys.length) return;
    this.#head++;
    if (this.#head >= 1024 && this.#head * 2 >= this.#keys.length) {
      this.#keys = this.#keys.slice(this.#head);
      this.#times = this.#times.slice(this.#head);
      this.#head = 0;
    }
  }
}
