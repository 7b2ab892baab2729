/**
 * The parity table's verdict (bench/parityRuns.ts): each figure's tolerance is the goal, or how far
 * two live runs of the same market differed when that is more; a gap beyond it fails the goal.
 */
import { describe, expect, it } from 'vitest';
import { GOAL, parityTable, tolerances, type ModeOutcome, type ParityFill, type ParityResult } from '../../bench/parityResults.js';
import { CASES } from '../../bench/parityRuns.js';
import { Decimal } from '../../src/core/decimal.js';

const buy = (qty: string): ParityFill => ({ clientKey: '0', side: 'BUY', price: new Decimal(100), qty: new Decimal(qty), quoteQty: new Decimal(qty).mul(100), commission: new Decimal(0), commissionAsset: 'BTC', isMaker: true });
const mode = (...qty: string[]): ModeOutcome => ({ intents: ['BUY 1@100'], placedAt: [0], fills: qty.map(buy) });

function result(live: ModeOutcome, others: { liveAgain?: ModeOutcome; paper: ModeOutcome; backtest: ModeOutcome }): ParityResult {
  return { c: CASES[0]!, live, ...others, mark: new Decimal(100), measured: { feedWallMs: 1, entryWallMs: 2, ackWallMs: 2, entryMs: 3, ackMs: 2, samples: 1, fillWallMs: 103, fillReplayMs: 90, streamHoldMs: 101 }, window: { startMs: 0, endMs: 1 } };
}

describe('parity table tolerances', () => {
  it('without a second live run every figure is held to the goal', () => {
    const r = result(mode('1'), { paper: mode('1.05'), backtest: mode('1.2') });
    expect(tolerances(r).qty).toBe(GOAL);
    expect(parityTable([r]).met).toBe(false);
    expect(parityTable([result(mode('1'), { paper: mode('1.05'), backtest: mode('0.95') })]).met).toBe(true);
  });

  it('a gap within the live-vs-live noise is met; one beyond it is not', () => {
    const noisy = { liveAgain: mode('1.25') };
    expect(tolerances(result(mode('1'), { ...noisy, paper: mode('1'), backtest: mode('1') })).qty).toBeCloseTo(0.25);
    expect(parityTable([result(mode('1'), { ...noisy, paper: mode('0.8'), backtest: mode('1.2') })]).met).toBe(true);
    const table = parityTable([result(mode('1'), { ...noisy, paper: mode('0.8'), backtest: mode('1.3') })]);
    expect(table.met).toBe(false);
    expect(table.lines.join('\n')).toContain('| tolerance |');
  });
});
