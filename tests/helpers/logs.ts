import { configure, type LogLevel, type LogRecord } from "@logtape/logtape";

/**
 * Route the library's log records (`category`, from `level` up) into `records`, LogTape's own meta logger
 * kept quiet. Pair it with `await reset()` from `@logtape/logtape` in a `finally`.
 */
export async function captureLogs(
  records: LogRecord[],
  category: string[] = ["gateway"],
  level: LogLevel = "debug",
): Promise<void> {
  await configure({
    sinks: { memory: (record) => records.push(record) },
    loggers: [
      { category, lowestLevel: level, sinks: ["memory"] },
      { category: ["logtape", "meta"], lowestLevel: "error", sinks: [] },
    ],
    reset: true,
  });
}
