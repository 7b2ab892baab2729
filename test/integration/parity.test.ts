/**
 * The parity suite, light: the trade fader runs live and on paper against the sandbox replaying the
 * bundled recording (2x, 10 s, live and paper at once), and as a backtest of the same recording
 * window with the latency the live run measured (bench/parityRuns.ts; `npm run parity` runs every
 * example strategy over the whole recording and prints the table).
 *
 * Stated tolerances (the goal is 10 %; the measured gaps are in src/backtest/README.md, "Parity"):
 *  - the trade fader decides on trade content only: its place intents are identical in the three
 *    modes (each run's list a contiguous part of the backtest's: a run joins the replay a moment late);
 *  - every fill pays the configured rate of its side (maker 0, taker 7.5 bps) on what it received;
 *  - paper and backtest (the same engine fed the same market): filled quantity within 25 %, taker
 *    share within 25 points (10 s of replay hold ~15 fills: one fill is 7 % of the sample);
 *  - live: filled quantity within 50 % of the backtest's. Its taker share is not asserted: the
 *    sandbox's engine took as taker 30-45 % of what paper and backtest filled as maker in the runs
 *    measured (see the README); the table shows the gap.
 */
import { describe, expect, it } from 'vitest';
import { CASES, contiguousIn, figuresOf, gap, parityTable, runParityCase, type ParityResult } from '../../bench/parityRuns.js';
import { Decimal } from '../../src/core/decimal.js';

const OPTIONS = { speed: 2, durationSec: 10 };

function checkFees(r: ParityResult): void {
  for (const m of ['live', 'paper', 'backtest'] as const) {
    for (const f of r[m].fills) {
      const rate = new Decimal(f.isMaker ? 0 : 7.5).div(10_000);
      const expected = f.side === 'BUY' ? { fee: f.qty.mul(rate).toFixed(), asset: 'BTC' } : { fee: f.quoteQty.mul(rate).toFixed(), asset: 'USDT' };
      expect({ fee: f.commission.toFixed(), asset: f.commissionAsset }, `${m} ${r.c.plugin} fill ${f.side} ${f.qty.toFixed()}@${f.price.toFixed()}`).toEqual(expected);
    }
  }
}

function checkFigures(r: ParityResult): void {
  const bt = figuresOf(r.backtest, r.mark);
  const paper = figuresOf(r.paper, r.mark);
  const live = figuresOf(r.live, r.mark);
  const table = parityTable([r]).lines.join('\n');
  expect(bt.filledQty, `${r.c.plugin}: the backtest filled nothing\n${table}`).toBeGreaterThan(0);
  expect(gap(paper.filledQty, bt.filledQty), table).toBeLessThanOrEqual(0.25);
  expect(Math.abs(paper.takerShare - bt.takerShare), table).toBeLessThanOrEqual(0.25);
  expect(gap(live.filledQty, bt.filledQty), table).toBeLessThanOrEqual(0.5);
}

describe('parity of live, paper and backtest against the sandbox replay (light)', () => {
  it('trade fader: identical intents, fees at the configured rates, fills within the stated tolerances', async () => {
    const r = await runParityCase(CASES.find((c) => c.plugin === 'trade-fader')!, OPTIONS);
    const table = parityTable([r]).lines.join('\n');
    expect(r.live.intents.length, table).toBeGreaterThan(3);
    expect(contiguousIn(r.live.intents, r.backtest.intents), `live\n${r.live.intents.join('\n')}\nbacktest\n${r.backtest.intents.join('\n')}`).toBe(true);
    expect(contiguousIn(r.paper.intents, r.backtest.intents), table).toBe(true);
    checkFees(r);
    checkFigures(r);
  }, 60_000);
});
