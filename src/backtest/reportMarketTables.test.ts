import { describe, expect, it } from 'vitest';
import type { BacktestResult } from './result.js';
import { amountText, inventorySection, quoteTouchTable, rollingSharpeSection, spreadCapturedTable } from './reportMarketTables.js';

const result = (spread: object, rolling: object): BacktestResult =>
  ({ strategies: { mm: { quoteAsset: 'USDT' } }, tearsheet: { mm: { spreadCaptured: spread, rollingSharpe: rolling } } }) as unknown as BacktestResult;

describe('market tables of the report', () => {
  it('spread captured: bps to two places, money with its asset to six digits; nothing without fills', () => {
    const r = result({ fills: 102, makerFills: 100, meanBps: 0.4132706726, makerMeanBps: null, totalQuote: 0.04063485123 }, { windowReturns: 30, windowMs: 30_000, points: [], min: null, max: null, note: 'x' });
    const html = spreadCapturedTable(r);
    expect(html).toContain('<td>mm</td><td>102</td><td>100</td><td>0.41 bps</td><td>n/a</td><td>0.0406349 USDT</td>');
    expect(html).not.toMatch(/0\.4132706726/);
    expect(spreadCapturedTable(result({ fills: 0, makerFills: 0, meanBps: null, makerMeanBps: null, totalQuote: 0 }, {}))).toBe('');
    expect(amountText(1234.5678912, 'USDT')).toBe('1234.57 USDT');
  });

  it('rolling Sharpe: a chart with its window stated, or n/a with the reason', () => {
    const pts = [{ t: 0, v: 0.1 }, { t: 1000, v: null }, { t: 2000, v: -0.2 }, { t: 3000, v: 0.05 }];
    const html = rollingSharpeSection(result({ fills: 0 }, { windowReturns: 30, windowMs: 1_800_000, points: pts, min: -0.2, max: 0.1 }));
    expect(html).toContain('<h3>mm: window of 30 returns (30m 0s)</h3><svg id="rolling-sharpe-mm"');
    // A point without a value breaks the line: one polyline before it, one after.
    expect(html.match(/<polyline/g)).toHaveLength(2);
    expect(html).toContain('from -0.20 to 0.10');
    expect(rollingSharpeSection(result({ fills: 0 }, { windowReturns: 30, windowMs: 30_000, points: [], min: null, max: null, note: '19 returns, fewer than one window of 30' }))).toContain('n/a (19 returns, fewer than one window of 30)');
  });
});

describe('quote time at the touch in the report', () => {
  it('a share per side with its sample count; nothing on candles (no figure)', () => {
    const r = { strategies: {}, tearsheet: { mm: { quoteTouch: { bidSamples: 112, bidAtTouchPct: 37.5, askSamples: 0, askAtTouchPct: null } } } } as unknown as BacktestResult;
    expect(quoteTouchTable(r)).toContain('<td>mm</td><td>37.5% of 112 samples</td><td>n/a</td>');
    expect(quoteTouchTable({ strategies: {}, tearsheet: { s: {} } } as unknown as BacktestResult)).toBe('');
  });
});

describe('inventory in the report', () => {
  it('a chart per strategy and symbol with its range; nothing without fills', () => {
    const r = { strategies: {}, tearsheet: { mm: { symbols: { BTC_USDT: { inventory: [{ t: 0, q: 0.5 }, { t: 10, q: -0.25 }, { t: 20, q: 0 }] } } } } } as unknown as BacktestResult;
    expect(inventorySection(r)).toContain('<h3>mm, BTC_USDT</h3><svg id="inventory-mm-BTC_USDT"');
    expect(inventorySection(r)).toContain('From -0.25 to 0.5 (base asset)');
    expect(inventorySection({ strategies: {}, tearsheet: { s: { symbols: {} } } } as unknown as BacktestResult)).toBe('');
  });
});
