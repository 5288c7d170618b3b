import { ConfigurationException } from "../errors.ts";
import { MAX_TIMER_MS } from "./timers.ts";

/** What a number setting must be. */
export interface NumberRule {
  /** Whole numbers only (default false). */
  integer?: boolean;
  /** The smallest value allowed, inclusive (default: 1 for integers, else anything above 0). */
  min?: number;
  /** The largest value allowed, inclusive (default none). */
  max?: number;
  /** The unit shown in the message (`ms`). */
  unit?: string;
}

function describe(rule: NumberRule): string {
  const unit = rule.unit === undefined ? "" : ` (${rule.unit})`;
  if (rule.integer) {
    const min = rule.min ?? 1;
    if (rule.max !== undefined) return `an integer from ${min} to ${rule.max}${unit}`;
    if (min === 1) return `a positive integer${unit}`;
    if (min === 0) return `a non-negative integer${unit}`;
    return `an integer >= ${min}${unit}`;
  }
  if (rule.min === undefined) {
    return rule.max === undefined ? `a positive number${unit}` : `a number > 0 and <= ${rule.max}${unit}`;
  }
  if (rule.max !== undefined) return `a number from ${rule.min} to ${rule.max}${unit}`;
  return rule.min === 0 ? `a non-negative number${unit}` : `a number >= ${rule.min}${unit}`;
}

function fits(value: number, rule: NumberRule): boolean {
  if (!Number.isFinite(value)) return false;
  if (rule.integer && !Number.isInteger(value)) return false;
  const min = rule.min ?? (rule.integer ? 1 : undefined);
  if (min === undefined ? !(value > 0) : value < min) return false;
  return rule.max === undefined || value <= rule.max;
}

/** `value` when it follows `rule`, `fallback` when undefined, else a `ConfigurationException` naming it. */
export function numberSetting(
  where: string,
  setting: string,
  value: unknown,
  fallback: number,
  rule: NumberRule = {},
): number {
  if (value === undefined) return fallback;
  if (typeof value === "number" && fits(value, rule)) return value;
  throw new ConfigurationException(
    `${where}: "${setting}" must be ${describe(rule)}, got "${String(value)}"`,
    {
      setting,
    },
  );
}

/** A number setting above 0 (see {@link numberSetting}). */
export function positiveNumber(where: string, setting: string, value: unknown, fallback: number): number {
  return numberSetting(where, setting, value, fallback);
}

/** A whole-number setting of at least 1, at most `max` when given (see {@link numberSetting}). */
export function positiveInteger(
  where: string,
  setting: string,
  value: unknown,
  fallback: number,
  max?: number,
): number {
  return numberSetting(where, setting, value, fallback, { integer: true, min: 1, max });
}

/** A whole-number setting of at least 0 (a count that may be zero; see {@link numberSetting}). */
export function nonNegativeInteger(where: string, setting: string, value: unknown, fallback: number): number {
  return numberSetting(where, setting, value, fallback, { integer: true, min: 0 });
}

/** A delay in ms a timer can hold: above 0 (or at least `min`), at most {@link MAX_TIMER_MS}. */
export function timerMs(
  where: string,
  setting: string,
  value: unknown,
  fallback: number,
  min?: number,
): number {
  return numberSetting(where, setting, value, fallback, { min, max: MAX_TIMER_MS, unit: "ms" });
}
