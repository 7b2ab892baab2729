/**
 * The V8 flags a backtest or a sweep sets once its plugins are loaded, before any data is read
 * (each unless the user gave it on the command line or in NODE_OPTIONS):
 *
 * - Heap growth: when collecting is cheap, V8 lets the old generation grow to about four times
 *   what survived the last full collection before it collects again; a day-long backtest then
 *   peaks at ~215 MiB RSS with ~20 MB live (~460 MB when the readers' objects were still
 *   pretenured, see core/plainObject.ts). Doubling instead holds it near 170 MiB, as growing by
 *   half did, for fewer full collections (a binary day: ~21 against ~43, ~0.4 s less CPU). V8
 *   reads the flag each time it sets the next limit.
 * - Optimization: V8 (Node 20 has no tier between its baseline compiler and TurboFan) optimizes a
 *   function after 3 ticks of its interrupt budget, so the few thousand snapshot levels of a short
 *   replay made a dozen parsing functions hot: TurboFan, on a second thread, took ~13 % of a
 *   400-line backtest's instructions to compile code that then ran for milliseconds. After 12
 *   ticks only what stays hot is optimized: that backtest took ~8 % fewer instructions in all, a
 *   replay of 1/133 of a day ~7 % fewer.
 *
 * V8 refuses a code cache made under other flags, and Node's own modules come with caches made
 * under the defaults: so the flags are set late, once the CLI's modules are loaded, and the build
 * writes the caches a sweep's worker threads take under these same flags (bin/bundle-dist.mjs).
 */
import process from 'node:process';
import { setFlagsFromString } from 'node:v8';

/** The flags set (name, value); the build resets them to V8's defaults (`REPLAY_FLAG_DEFAULTS`) to write its other caches. */
export const REPLAY_FLAGS: readonly (readonly [string, number])[] = [
  ['--heap-growing-percent', 100],
  ['--ticks-before-optimization', 12],
];

/** V8's defaults of {@link REPLAY_FLAGS} (Node 20). */
export const REPLAY_FLAG_DEFAULTS: readonly (readonly [string, number])[] = [
  ['--heap-growing-percent', 0],
  ['--ticks-before-optimization', 3],
];

/** Whether the user gave V8 flag `flag` (as `--a-b` or `--a_b`) on the command line or in NODE_OPTIONS. */
function userGave(flag: string): boolean {
  const underscored = `--${flag.slice(2).replaceAll('-', '_')}`;
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith(flag) || a.startsWith(underscored));
}

/** Sets {@link REPLAY_FLAGS}, each unless the user set it. */
export function setReplayFlags(): void {
  for (const [flag, value] of REPLAY_FLAGS) if (!userGave(flag)) setFlagsFromString(`${flag}=${value}`);
}
