/**
 * SHA-256 computed synchronously, for the short texts of the send path (an idempotent send's fingerprint):
 * `crypto.subtle.digest` is a round trip to another thread per call (figures: bench/README.md, "Bot: cost
 * per update", the idempotent send). The result is the same SHA-256 (FIPS 180-4): stored fingerprints match.
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

const encoder = new TextEncoder();
// Int32 everywhere: V8 keeps the arithmetic in 32-bit integers (no doubles for words above 2^31).
const schedule = new Int32Array(64);
const hash = new Int32Array(8);
let buffer = new Uint8Array(1024);

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

/** The SHA-256 of `text` (UTF-8), as 64 lowercase hex digits. */
export function sha256Hex(text: string): string {
  // The message, a 1 bit, zeros, and its length in bits (64 bits): a whole number of 64-byte blocks.
  // One buffer serves every call (the function is synchronous): no allocation for a short text.
  if (text.length * 3 + 72 > buffer.length) buffer = new Uint8Array(text.length * 3 + 72);
  const length = encoder.encodeInto(text, buffer).written;
  const end = Math.ceil((length + 9) / 64) * 64;
  buffer[length] = 0x80;
  buffer.fill(0, length + 1, end - 5);
  const bits = length * 8; // below 2^40 bits: a string holds at most 2^29 code units
  buffer[end - 5] = Math.floor(bits / 0x1_0000_0000);
  buffer[end - 4] = bits >>> 24;
  buffer[end - 3] = bits >>> 16;
  buffer[end - 2] = bits >>> 8;
  buffer[end - 1] = bits;
  hash.set(INITIAL);
  for (let offset = 0; offset < end; offset += 64) compress(buffer, offset);
  let hex = "";
  for (let i = 0; i < 8; i++) hex += (hash[i] >>> 0).toString(16).padStart(8, "0");
  return hex;
}
