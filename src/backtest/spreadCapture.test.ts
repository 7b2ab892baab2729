import { describe, expect, it } from 'vitest';
import { SpreadCaptureBuilder } from './spreadCapture.js';

describe('spread captured', () => {
  it('a buy below the mid and a sell above it capture spread, in quote and bps; maker fills apart', () => {
    const b = new SpreadCaptureBuilder();
    for (const mid of [100, 100, 100, undefined]) b.mark(mid);
    b.fill({ strategy: 'mm', side: 'BUY', price: '99.9', qty: '2', maker: true });
    b.fill({ strategy: 'mm', side: 'SELL', price: '100.2', qty: '1', maker: true });
    b.fill({ strategy: 'mm', side: 'BUY', price: '100.05', qty: '1', maker: false });
    b.fill({ strategy: 'mm', side: 'BUY', price: '1', qty: '1', maker: false });
    const r = b.of('mm', (x) => Number(x.toPrecision(10)));
    expect(r.fills).toBe(3);
    expect(r.makerFills).toBe(2);
    // 0.1 x 2 + 0.2 x 1 - 0.05 x 1
    expect(r.totalQuote).toBeCloseTo(0.35, 10);
    expect(r.meanBps).toBeCloseTo((10 + 20 - 5) / 3, 8);
    expect(r.makerMeanBps).toBeCloseTo(15, 8);
    expect(b.of('other', (x) => x)).toEqual({ fills: 0, makerFills: 0, meanBps: null, makerMeanBps: null, totalQuote: 0 });
  });
});
