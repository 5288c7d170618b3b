/**
 * SHA-256 and HMAC-SHA256 computed here, synchronously, for short inputs: a send's fingerprint, a JWT's
 * signature, a short webhook body's signature and digest. Web Crypto's `digest` and `sign` are a round trip
 * to another thread per call, which costs the calling thread more than hashing up to about a kilobyte here;
 * longer inputs go to Web Crypto, whose hashing then runs beside the calling thread
 * ({@link SYNC_HASH_MAX_BYTES}; figures: bench/README.md, "Session 12: the closing figures"). The results are the same SHA-256 (FIPS 180-4)
 * and HMAC (RFC 2104): stored fingerprints and signatures match. No branch or table index depends on the
 * data or the key, so the time taken tells nothing but the input's length. Internal.
 *
 * @module
 */

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
// deno-fmt-ignore
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
const INITIAL = [
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
];

/** Inputs up to this length are hashed here; longer ones by Web Crypto (its per-call cost is then the smaller). */
export const SYNC_HASH_MAX_BYTES = 1024;

const encoder = new TextEncoder();
// Int32 everywhere: V8 keeps the arithmetic in 32-bit integers (no doubles for words above 2^31).
const schedule = new Int32Array(64);
const hash = new Int32Array(8);
// Scratch, holding nothing between calls (every function here is synchronous): a text's bytes, a message's
// last one or two blocks.
let buffer = new Uint8Array(1024);
const tail = new Uint8Array(128);

/** Mix one 64-byte block at `offset` of `bytes` into `hash`. */
function compress(bytes: Uint8Array, offset: number): void {
  const w = schedule;
  for (let i = 0; i < 16; i++) {
    const at = offset + i * 4;
    w[i] = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15], y = w[i - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = hash[0], b = hash[1], c = hash[2], d = hash[3], e = hash[4], f = hash[5], g = hash[6], h = hash[7];
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  hash[0] += a;
  hash[1] += b;
  hash[2] += c;
  hash[3] += d;
  hash[4] += e;
  hash[5] += f;
  hash[6] += g;
  hash[7] += h;
}

/**
 * Hash `bytes` into `hash`, starting from `start` after `before` bytes (a whole number of blocks) were mixed
 * in: the message's blocks, then a 1 bit, zeros and its length in bits (64 bits) in one or two last blocks.
 */
function digestInto(start: ArrayLike<number>, before: number, bytes: Uint8Array): void {
  hash.set(start);
  const whole = bytes.length - (bytes.length % 64);
  for (let offset = 0; offset < whole; offset += 64) compress(bytes, offset);
  const rest = bytes.length - whole;
  const end = rest + 9 > 64 ? 128 : 64;
  tail.set(bytes.subarray(whole));
  tail[rest] = 0x80;
  tail.fill(0, rest + 1, end - 5);
  const bits = (before + bytes.length) * 8; // below 2^53: exact
  tail[end - 5] = Math.floor(bits / 0x1_0000_0000);
  tail[end - 4] = bits >>> 24;
  tail[end - 3] = bits >>> 16;
  tail[end - 2] = bits >>> 8;
  tail[end - 1] = bits;
  for (let offset = 0; offset < end; offset += 64) compress(tail, offset);
}

/** `hash` as 32 bytes, big-endian. */
function hashBytes(): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const word = hash[i];
    out[i * 4] = word >>> 24;
    out[i * 4 + 1] = word >>> 16;
    out[i * 4 + 2] = word >>> 8;
    out[i * 4 + 3] = word;
  }
  return out;
}

/** The SHA-256 of `bytes`, computed here (any length; see {@link digestSha256} for the fastest way). */
export function sha256(bytes: Uint8Array): Uint8Array {
  digestInto(INITIAL, 0, bytes);
  return hashBytes();
}

/** The SHA-256 of `bytes`: computed here up to {@link SYNC_HASH_MAX_BYTES}, by Web Crypto above. */
export async function digestSha256(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.length <= SYNC_HASH_MAX_BYTES) return sha256(bytes);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

/** The SHA-256 of `text` (UTF-8), as 64 lowercase hex digits. */
export function sha256Hex(text: string): string {
  if (text.length * 3 > buffer.length) buffer = new Uint8Array(text.length * 3);
  const length = encoder.encodeInto(text, buffer).written;
  digestInto(INITIAL, 0, buffer.subarray(0, length));
  let hex = "";
  for (let i = 0; i < 8; i++) hex += (hash[i] >>> 0).toString(16).padStart(8, "0");
  return hex;
}

/** The state after one block of `key` (padded to 64 bytes) XOR `pad`. */
function padState(key: Uint8Array, pad: number): Int32Array {
  const block = new Uint8Array(64).fill(pad);
  for (let i = 0; i < key.length; i++) block[i] = key[i] ^ pad;
  hash.set(INITIAL);
  compress(block, 0);
  return hash.slice();
}

function toBytes(buffer: ArrayBuffer): Uint8Array {
  return new Uint8Array(buffer);
}

/**
 * An HMAC-SHA256 key (RFC 2104): contents up to {@link SYNC_HASH_MAX_BYTES} are signed here, longer ones by
 * Web Crypto (the key imported when first needed; a failed import is tried again next time).
 */
export class HmacSha256 {
  readonly #inner: Int32Array;
  readonly #outer: Int32Array;
  readonly #material: Uint8Array;
  #subtle: CryptoKey | undefined;

  /** A key of `material`'s bytes (longer than a block: its SHA-256, as RFC 2104 says). */
  constructor(material: Uint8Array) {
    const key = material.length > 64 ? sha256(material) : material;
    this.#inner = padState(key, 0x36);
    this.#outer = padState(key, 0x5c);
    this.#material = material.slice();
  }

  /** The MAC of `content`, computed here (any length). */
  signHere(content: Uint8Array): Uint8Array {
    digestInto(this.#inner, 64, content);
    const inner = hashBytes();
    digestInto(this.#outer, 64, inner);
    return hashBytes();
  }

  /** The MAC of `content`: computed here up to {@link SYNC_HASH_MAX_BYTES}, by Web Crypto above. */
  sign(content: Uint8Array): Promise<Uint8Array> {
    if (content.length <= SYNC_HASH_MAX_BYTES) return Promise.resolve(this.signHere(content));
    const bytes = content as Uint8Array<ArrayBuffer>;
    const key = this.#subtle;
    if (key !== undefined) return crypto.subtle.sign("HMAC", key, bytes).then(toBytes);
    const material = this.#material as Uint8Array<ArrayBuffer>;
    return crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
      .then((imported) => crypto.subtle.sign("HMAC", this.#subtle = imported, bytes)).then(toBytes);
  }
}
