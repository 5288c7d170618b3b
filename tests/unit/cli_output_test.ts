import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import { numberFlag, parseFlags } from "../../src/cli/args.ts";
import { errorText, UsageError } from "../../src/cli/io.ts";
import { isolatedIo } from "../integration/cli_helpers.ts";
import { COMMAND_NAMES, main, PACKAGE_COMMAND } from "../../src/cli/main.ts";
import { runCommand } from "../../src/cli/command.ts";
import { ProgressBar, renderBar, Spinner } from "../../src/cli/progress.ts";
import { qrMatrix, renderQr } from "../../src/cli/qr_terminal.ts";
import { renderTable } from "../../src/cli/table.ts";
import qrcode from "qrcode-generator";

Deno.test("cli table: aligned columns, placeholders for empty cells, one line per row", () => {
  strictEqual(
    renderTable(["NAME", "STATE", "OWNER"], [["sales", "open", "551199@s.whatsapp.net"], [
      "support\nteam",
      null,
      "",
    ]]),
    "NAME          STATE  OWNER\n" +
      "sales         open   551199@s.whatsapp.net\n" +
      "support team  -      -\n",
  );
});

Deno.test("cli progress: bar frames, silent off a terminal", () => {
  strictEqual(renderBar("Pruning", 5, 10, 10), "Pruning [#####-----] 5/10");
  strictEqual(renderBar("Pruning", 10, 10, 4), "Pruning [####] 10/10");
  strictEqual(renderBar("Resending", 3, undefined, 10), "Resending 3");
  const quiet = isolatedIo();
  const bar = new ProgressBar(quiet, "Pruning");
  bar.update(1, 2);
  bar.done();
  new Spinner(quiet, "Waiting").start().stop();
  strictEqual(quiet.err(), "");
  const tty = isolatedIo({ terminal: true });
  const shown = new ProgressBar(tty, "Pruning", 4);
  shown.update(2, 4);
  shown.update(4, 4);
  shown.done();
  strictEqual(tty.err(), "\r\x1b[2KPruning [##--] 2/4\r\x1b[2KPruning [####] 4/4\r\x1b[2K");
});

/** Read the modules back from the plain rendering (dark modules are the blank halves). */
function parsePlain(text: string): boolean[][] {
  const rows: boolean[][] = [];
  for (const line of text.trimEnd().split("\n")) {
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (const ch of line) {
      top.push(!(ch === "█" || ch === "▀"));
      bottom.push(!(ch === "█" || ch === "▄"));
    }
    rows.push(top, bottom);
  }
  return rows;
}

Deno.test("cli qr: the terminal rendering carries exactly the encoder's modules, with a quiet zone", () => {
  const code = "2@y8dO3kZ3vXvJrGzQk,AbCdEfGhIjKlMnOpQrStUvWxYz0123456789=,ZyXwVuTsRqPoNmLk=,QWERTYuiop=,1";
  const matrix = qrMatrix(code);
  strictEqual(matrix.length, 37); // version 5 at level L for this length
  const drawn = parsePlain(renderQr(code, { style: "plain", margin: 2 }));
  const size = matrix.length + 4;
  strictEqual(drawn[0].length, size);
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const inside = row >= 2 && col >= 2 && row < size - 2 && col < size - 2;
      strictEqual(drawn[row][col], inside ? matrix[row - 2][col - 2] : false, `module ${row},${col}`);
    }
  }
  // The finder pattern's top row: seven dark modules.
  deepStrictEqual(matrix[0].slice(0, 7), [true, true, true, true, true, true, true]);
  const ansi = renderQr(code);
  strictEqual(ansi.split("\n")[0].startsWith("\x1b[30;107m"), true);
  strictEqual(ansi.trimEnd().split("\n").length, Math.ceil(size / 2));
});

Deno.test("cli qr: UTF-8 text is encoded as bytes", () => {
  // "é" must be the two UTF-8 bytes C3 A9, not the library's default one Latin-1 byte E9.
  const expected = qrcode(0, "L");
  expected.addData("\u00c3\u00a9", "Byte");
  expected.make();
  const size = expected.getModuleCount();
  const bytes = Array.from(
    { length: size },
    (_, r) => Array.from({ length: size }, (_, c) => expected.isDark(r, c)),
  );
  deepStrictEqual(qrMatrix("é"), bytes);
  const latin1 = qrcode(0, "L");
  latin1.addData("é", "Byte");
  latin1.make();
  strictEqual(qrMatrix("é").every((row, r) => row.every((dark, c) => dark === latin1.isDark(r, c))), false);
});

Deno.test("cli args: strict parsing and number checks", () => {
  throws(() => parseFlags(["--nope"], {}, 0), (error) => error instanceof UsageError && error.exitCode === 2);
  const parsed = parseFlags(["a", "--json"], { json: { type: "boolean", help: "print JSON" } }, 1);
  deepStrictEqual({ values: { ...parsed.values }, positionals: parsed.positionals }, {
    values: { json: true },
    positionals: ["a"],
  });
  strictEqual(numberFlag({}, "days", { fallback: 30 }), 30);
  strictEqual(numberFlag({ days: "0.5" }, "days", { fallback: 30 }), 0.5);
  throws(() => numberFlag({ days: "" }, "days", { fallback: 30 }), {
    message: 'Cannot parse arguments: "--days" must be a positive number, got ""',
  });
  throws(() => numberFlag({ n: "-1" }, "n", { fallback: 1, min: 0, integer: true }), {
    message: 'Cannot parse arguments: "--n" must be an integer >= 0, got "-1"',
  });
  strictEqual(numberFlag({ n: "0" }, "n", { fallback: 1, min: 0, integer: true }), 0);
});

Deno.test("cli errors: a bare fetch failure gets its innermost cause", () => {
  const inner = new Error("error sending request: client error (Connect): Connection refused (os error 111)");
  const fetchError = new TypeError("fetch failed", { cause: inner });
  strictEqual(
    errorText(new Error("Cannot reach gateway server for GET /: fetch failed", { cause: fetchError })),
    "Cannot reach gateway server for GET /: fetch failed (Connection refused (os error 111))",
  );
  strictEqual(errorText(new Error("line one\nline two")), "line one");
});

Deno.test("cli main: usage, version, unknown commands, --help of every command", async () => {
  const none = isolatedIo();
  strictEqual(await main([], none), 2);
  strictEqual(none.err().startsWith("@gw/gateway "), true);
  const help = isolatedIo();
  strictEqual(await main(["--help"], help), 0);
  strictEqual(help.out().includes("  retry-failed     resend failed messages recorded in the store\n"), true);
  const version = isolatedIo();
  strictEqual(await main(["--version"], version), 0);
  strictEqual(version.out(), "0.1.0\n");
  const unknown = isolatedIo();
  strictEqual(await main(["helth"], unknown), 2);
  strictEqual(
    unknown.err(),
    'error: Unknown command "helth" (commands: "install", "create", "health", "status", "connect", "send", "prune", "retry-failed", "reconcile-sends", "reconcile", "serve")\n',
  );
  for (const name of COMMAND_NAMES) {
    const io = isolatedIo();
    strictEqual(await main([name, "--help"], io), 0, name);
    strictEqual(io.out().startsWith(`Usage: deno task ${name}`), true, name);
    strictEqual(io.err(), "");
  }
});

Deno.test("cli: a command it suggests is one that exists where the user runs it", () => {
  // In a checkout of this repository the deno.json tasks exist; from the package, in a user's project, not.
  strictEqual(
    runCommand("create sales", "file:///home/me/gateway/src/cli/command.ts"),
    "deno task create sales",
  );
  strictEqual(
    runCommand("create sales", "https://jsr.io/@gw/gateway/0.1.0/src/cli/command.ts"),
    `${PACKAGE_COMMAND} create sales`,
  );
  strictEqual(
    PACKAGE_COMMAND,
    'deno run --allow-net "--allow-env=GATEWAY_*" --allow-read=. --allow-write=. --unstable-kv --unstable-cron ' +
      "jsr:@gw/gateway/cli",
  );
  // Every message of the command line builds its suggestion with runCommand: no "deno task" written out
  // but in runPrefix itself.
  const dir = new URL("../../src/cli/", import.meta.url);
  for (const entry of Deno.readDirSync(dir)) {
    const lines = Deno.readTextFileSync(new URL(entry.name, dir)).split("\n");
    const written = lines.filter((line) =>
      /deno task\b/.test(line) && !/^\s*(\*|\/\/|\/\*\*)/.test(line) &&
      !line.includes('inCheckout(from) ? "deno task" : PACKAGE_COMMAND')
    );
    deepStrictEqual(written, [], entry.name);
  }
});
