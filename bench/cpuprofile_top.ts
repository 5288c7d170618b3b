// The top self-times of a V8 .cpuprofile (from `deno run --cpu-prof`), per request when the request count
// is given: by function, and grouped by origin (src/, bench/, Deno's extensions, native calls, idle).
// Run: deno run --allow-read bench/cpuprofile_top.ts <file.cpuprofile> [requests] [rows]
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const [file, requestsText, rowsText] = Deno.args;
const profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] } = JSON.parse(
  Deno.readTextFileSync(file),
);
const requests = Number(requestsText ?? 0);
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const byFunction = new Map<string, number>();
const byOrigin = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const time = self.get(node.id) ?? 0;
  total += time;
  const { functionName, url, lineNumber } = node.callFrame;
  const at = url.replace(/^.*\/(src|bench)\//, "$1/");
  const name = `${functionName || "(anonymous)"} ${at}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + time);
  const origin = /\/src\//.test(url)
    ? "src/"
    : /\/bench\//.test(url)
    ? "bench/"
    : url.startsWith("ext:")
    ? url.split("/")[0]
    : functionName;
  byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + time);
}
const show = (micros: number) =>
  requests > 0
    ? `${(micros / requests).toFixed(2).padStart(8)} µs/request`
    : `${(micros / 1000).toFixed(1)} ms`;
const top = (map: Map<string, number>, rows: number) =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, rows).forEach(([name, time]) =>
    console.log(show(time), `${(100 * time / total).toFixed(1).padStart(5)} %`, name)
  );
console.log("by origin:");
top(byOrigin, 12);
console.log("by function:");
top(byFunction, Number(rowsText ?? 30));
const idle = byOrigin.get("(idle)") ?? 0;
console.log(`busy ${show(total - idle)}, idle ${show(idle)}`);
