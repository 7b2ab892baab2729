/**
 * Parity of the three modes: each example strategy (market maker, grid, trade fader) run live and on
 * paper against the sandbox replaying the bundled 120 s BTCUSDT recording in real time, and as a
 * backtest of the same window with the order latency the live run measured (bench/parityRuns.ts).
 * Prints every mode's orders, filled quantity, taker share, fees and PnL (at one mark) and their
 * gaps to the live run; the goal is 10 % on each. The candle strategy (sma-crossover) has no place
 * here: live and paper runs subscribe depth and trades only, so it would see no kline.
 * `npm run parity` runs this alone (`PARITY_SPEED`, default 1, replays faster).
 */
import { CASES, GOAL, parityTable, runParityCase, type ParityResult } from './parityRuns.js';
import type { BenchReport } from './report.js';

export async function run(): Promise<BenchReport> {
  const speed = Number(process.env.PARITY_SPEED ?? 1);
  const results: ParityResult[] = [];
  for (const c of CASES) results.push(await runParityCase(c, { speed, durationSec: 0, log: (l) => process.stderr.write(`${l}\n`) }));
  const { lines, met } = parityTable(results);
  return {
    name: `parity: live, paper and backtest over the bundled recording (speed ${speed}; goal: every gap within ${GOAL * 100} % of live)`,
    lines: [...lines, met ? 'every gap within the goal' : 'some gaps exceed the goal (see the table and src/backtest/README.md, "Parity")'],
    ok: met,
  };
}
