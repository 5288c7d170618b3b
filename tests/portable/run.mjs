// Entry point of the portable suite: node run.mjs | bun run.mjs (from the app directory the package is
// installed in). Exits 1 when a test failed.
import "./client_cases.mjs";
import "./webhook_cases.mjs";
import "./backend_cases.mjs";
import "./deno_only_cases.mjs";
import "./bot_cases.mjs";
import { run } from "./runner.mjs";

const failed = await run();
process.exitCode = failed === 0 ? 0 : 1;
