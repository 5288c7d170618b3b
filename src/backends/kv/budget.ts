/**
 * Deno KV's limits on one atomic operation, and a running tally that says when an operation is full.
 *
 * The limits (checked against Deno 2.9's local backend, the same numbers Deno Deploy documents): at most
 * 1000 mutations, 100 checks, 81 920 bytes of keys, 819 200 bytes of keys and values in total, 65 536
 * bytes per value, 2048 bytes per key. The local backend counts only the keys of `set`s towards the key
 * total; the tally counts every key, to stay inside whatever a distributed backend counts.
 *
 * @module
 */

/** The largest value Deno KV stores under one key. */
export const MAX_VALUE_BYTES = 65_536;

const MAX_MUTATIONS = 1000;
const MAX_CHECKS = 100;
// A margin under the hard limits, for the encoding overhead this estimate does not see.
const MAX_KEY_BYTES = 81_920 - 4_096;
const MAX_TOTAL_BYTES = 819_200 - 16_384;

const encoder = new TextEncoder();

/** An upper bound of the encoded size of a key (tuple encoding: a tag per part, escaped strings). */
export function keyBytes(key: Deno.KvKey): number {
  let size = 0;
  for (const part of key) {
    if (typeof part === "string") size += 2 + encoder.encode(part).length + countNul(part);
    else if (typeof part === "number") size += 9;
    else if (typeof part === "bigint") size += 2 + Math.ceil(part.toString(16).length / 2);
    else if (typeof part === "boolean") size += 1;
    else if (part instanceof Uint8Array) size += 2 + part.length * 2;
    else size += 64;
  }
  return size;
}

function countNul(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\u0000"); i !== -1; i = text.indexOf("\u0000", i + 1)) count++;
  return count;
}

/** What one atomic operation has used so far. */
export class AtomicBudget {
  #mutations = 0;
  #checks = 0;
  #keyBytes = 0;
  #totalBytes = 0;

  /** True when nothing was added yet. */
  get empty(): boolean {
    return this.#mutations === 0 && this.#checks === 0;
  }

  /** Whether the operation can take this much more. */
  fits(mutations: number, checks: number, keyBytes: number, valueBytes: number): boolean {
    return this.#mutations + mutations <= MAX_MUTATIONS &&
      this.#checks + checks <= MAX_CHECKS &&
      this.#keyBytes + keyBytes <= MAX_KEY_BYTES &&
      this.#totalBytes + keyBytes + valueBytes <= MAX_TOTAL_BYTES;
  }

  /** Count what was added to the operation. */
  add(mutations: number, checks: number, keyBytes: number, valueBytes: number): void {
    this.#mutations += mutations;
    this.#checks += checks;
    this.#keyBytes += keyBytes;
    this.#totalBytes += keyBytes + valueBytes;
  }
}
