/**
 * Lengths of time written as text in configuration files (`90m`, `2h`, `1d`): one reading for the
 * backtest's warm-up and a sweep's windows, so both accept the same spellings.
 */

/** Milliseconds per unit a duration may be written in. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A positive whole number followed by one unit (ms, s, m, h, d). */
export const DURATION_PATTERN = /^([1-9]\d*)(ms|s|m|h|d)$/;

/** Milliseconds of a duration text, or undefined when it is not one ({@link DURATION_PATTERN}). */
export function durationTextMs(text: string): number | undefined {
  const m = DURATION_PATTERN.exec(text);
  return m === null ? undefined : Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}
