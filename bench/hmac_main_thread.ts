/**
 * What one HMAC-SHA256 costs the calling (main) thread and all threads: Web Crypto's `crypto.subtle.sign`
 * against the library's own `HmacSha256.sign`, 32 signatures in flight as under load, for a JWT's signed part
 * (150 bytes), the limit below which the library signs itself (`SYNC_HASH_MAX_BYTES`) and a webhook body
 * (2,200 bytes). CPU times are read from /proc (Linux only), so they count work on Web Crypto's threads too.
 *
 *   deno run -A --lock=tests/npm/deno.lock bench/hmac_main_thread.ts [--rounds 3] [--signatures 60000]
 */

import { HmacSha256, SYNC_HASH_MAX_BYTES } from "../src/util/sha256.ts";
import { median } from "./stats.ts";

function arg(name: string, fallback: number): number {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
}

const ROUNDS = arg("rounds", 3);
const SIGNATURES = arg("signatures", 60_000);
const IN_FLIGHT = 32;

/** CPU time (ms, user + system) of the main thread or of the whole process, from /proc. */
function cpuMs(whole: boolean): number {
  const path = whole ? `/proc/${Deno.pid}/stat` : `/proc/${Deno.pid}/task/${Deno.pid}/stat`;
  const fields = Deno.readTextFileSync(path).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
}

const material = new TextEncoder().encode("bench-webhook-secret-0123456789abcdef");
const subtleKey = await crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, [
  "sign",
]);
const ours = new HmacSha256(material);

async function round(sign: (content: Uint8Array<ArrayBuffer>) => Promise<unknown>, size: number) {
  const content = new Uint8Array(size).fill(65);
  const main = cpuMs(false), all = cpuMs(true);
  for (let i = 0; i < SIGNATURES / IN_FLIGHT; i++) {
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => sign(content)));
  }
  return { main: (cpuMs(false) - main) * 1000 / SIGNATURES, all: (cpuMs(true) - all) * 1000 / SIGNATURES };
}

const variants = {
  "crypto.subtle.sign": (content: Uint8Array<ArrayBuffer>) => crypto.subtle.sign("HMAC", subtleKey, content),
  "HmacSha256 (here)": (content: Uint8Array<ArrayBuffer>) => Promise.resolve(ours.signHere(content)),
};
console.log(
  `${SIGNATURES} signatures per round, ${IN_FLIGHT} in flight, median of ${ROUNDS} rounds (µs per signature)`,
);
for (const size of [150, SYNC_HASH_MAX_BYTES, 2200]) {
  for (const [name, sign] of Object.entries(variants)) {
    const results = [];
    for (let r = 0; r < ROUNDS; r++) results.push(await round(sign, size));
    const main = median(results.map((r) => r.main)), all = median(results.map((r) => r.all));
    console.log(
      `${String(size).padStart(5)} bytes  ${name.padEnd(20)} main thread ${main.toFixed(1)}  all threads ${
        all.toFixed(1)
      }`,
    );
  }
}
