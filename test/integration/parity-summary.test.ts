/**
 * The parity summary (bench/paritySummary.ts) over dumps written as the parity bench writes them:
 * means and standard errors per mode, and a mode's bias against live's mean in standard errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paritySummary } from '../../bench/paritySummary.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kancil-parity-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An outcome of one BUY of `qty` at 10, placed at 1,000 and filled as maker (plus one placed outside the window). */
function outcome(qty: number) {
  const fill = (key: string) => ({ side: 'BUY', price: '10', qty: String(qty), quoteQty: String(qty * 10), commission: '0', commissionAsset: 'USDT', isMaker: true, clientKey: key });
  return { intents: [`BUY ${qty}@10`, 'BUY 9@10'], placedAt: [1_000, 99_000], fills: [fill('0'), { ...fill('1'), qty: '9', quoteQty: '90' }] };
}

describe('parity summary', () => {
  it('gives each mode mean ± standard error over its runs, and its bias against live in standard errors, counting only the window', () => {
    const dump = (live: number, again: number, paper: number, backtest: number) => ({
      case: 'mm',
      window: { startMs: 0, endMs: 10_000 },
      mark: '11',
      live: { outcome: outcome(live) },
      again: { outcome: outcome(again) },
      paper: { outcome: outcome(paper) },
      backtest: { outcome: outcome(backtest) },
    });
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify(dump(1, 3, 4, 2)));
    writeFileSync(path.join(dir, 'b.json'), JSON.stringify(dump(1, 3, 4, 2)));
    const lines = paritySummary(dir);
    const row = (mode: string) => lines.find((l) => l.startsWith(`| mm | ${mode} |`))?.split('|').map((c) => c.trim());
    // Live: 1, 3, 1, 3 -> mean 2, sd sqrt(4/3), se sqrt(4/3)/2 = 0.577; PnL = qty x (11 - 10).
    expect(row('live')?.slice(4, 6)).toEqual(['2.0000 ± 0.5774', '0.0 % ± 0.0 %']);
    expect(row('live')?.[7]).toBe('2.000 ± 0.577');
    // Paper 4 twice: +100 % of live's mean, 2 / 0.577 = 3.5 standard errors.
    expect(row('paper')?.[3]).toBe('2');
    expect(row('paper')?.[8]).toBe('100.0 % (3.5 se)');
    expect(row('backtest')?.[8]).toBe('0.0 % (0.0 se)');
    expect(lines.some((l) => l.includes('two clocks'))).toBe(false);
  });
});
