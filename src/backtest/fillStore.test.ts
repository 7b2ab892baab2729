import { describe, expect, it } from 'vitest';
import type { FillEvent } from '../bus/events.js';
import { Decimal } from '../core/decimal.js';
import { numberText } from '../core/bigDecimalText.js';
import { FillStore } from './fillStore.js';
import { valuedFill } from './roundTrips.js';

function fill(over: Partial<FillEvent>): FillEvent {
  return { type: 'fill', E: 1722470459999, strategy: 'sma', clientId: 'c1', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: '7', price: new Decimal('64628.01'), qty: new Decimal('0.1'), quoteQty: new Decimal('6462.801'), commission: new Decimal('0.0001'), commissionAsset: 'BTC', isMaker: false, ...over };
}

/** What the collector spooled before: the ReportFill through JSON. */
function viaJson(e: FillEvent): unknown {
  return JSON.parse(JSON.stringify({ t: e.E, strategy: e.strategy, symbol: e.symbol, side: e.side, price: e.price.toFixed(), qty: e.qty.toFixed(), fee: e.commission.toFixed(), feeAsset: e.commissionAsset, maker: e.isMaker }));
}

/** A random decimal text: up to 20 significant digits, a point anywhere (or none), zeros around, a sign. */
function randomText(rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 20);
  let digits = '';
  for (let i = 0; i < n; i++) digits += String(Math.floor(rnd() * 10));
  const zeros = '0'.repeat(Math.floor(rnd() * 12));
  const body = rnd() < 0.5 ? digits + zeros : zeros + digits;
  const dot = Math.floor(rnd() * (body.length + 1));
  const text = dot === body.length ? body : `${body.slice(0, dot) || '0'}.${body.slice(dot)}`;
  return (rnd() < 0.2 ? '-' : '') + text;
}

function lcg(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

describe('FillStore', () => {
  it('reads back what JSON gave for each fill, odd values and names included, across spilled chunks', () => {
    const store = new FillStore({ chunkRows: 4, memChunks: 1, bufferBytes: 64 });
    const rnd = lcg(7);
    const cases: FillEvent[] = [
      fill({}),
      fill({ side: 'SELL', commissionAsset: null, isMaker: true, strategy: 'a "quoted"\\name\n', symbol: 'ÉTH_€' }),
      fill({ E: Number.NaN, price: new Decimal('1e-12'), qty: new Decimal('-0'), commission: new Decimal('123456789012345678901234567890.5') }),
      fill({ E: -0, commission: new Decimal(Number.NaN) }),
      fill({ price: new Decimal('1e30'), qty: new Decimal('9007199254740993'), commission: new Decimal('-1.5e-25') }),
      fill({ price: new Decimal('9007199254740991'), qty: new Decimal('100'), commission: new Decimal('0') }),
      fill({ E: Number.POSITIVE_INFINITY, commissionAsset: 'USDT' }),
    ];
    for (let i = 0; i < 300; i++) {
      cases.push(fill({ E: Math.floor(rnd() * 2e12) - 1e11, side: rnd() < 0.5 ? 'BUY' : 'SELL', price: new Decimal(randomText(rnd)), qty: new Decimal(randomText(rnd)), commission: new Decimal(randomText(rnd)), isMaker: rnd() < 0.5 }));
    }
    for (const e of cases) store.push(e);
    expect(store.length).toBe(cases.length);
    const want = cases.map(viaJson);
    // Read twice: a store reads back any number of times.
    expect([...store]).toStrictEqual(want);
    expect([...store]).toStrictEqual(want);
    store.dispose();
    // The values handed to the round trips are the texts' own, in bigOfText's form (a text that is
    // not a number has none: the round trips refuse it as they always did).
    const finite = new FillStore({ chunkRows: 4, memChunks: 1, bufferBytes: 64 });
    for (const e of cases) if (e.price.isFinite() && e.qty.isFinite() && e.commission.isFinite()) finite.push(e);
    expect(finite.length).toBeGreaterThan(cases.length - 3);
    expect([...finite.valued()]).toStrictEqual([...finite].map(valuedFill));
    finite.dispose();
    expect([...store]).toStrictEqual([]);
  });

  it('prints m x 10^k as decimal.js toFixed prints the value', () => {
    const rnd = lcg(11);
    for (let i = 0; i < 2000; i++) {
      const m = Math.floor((rnd() - 0.5) * 2 * 10 ** Math.floor(rnd() * 16));
      const k = Math.floor(rnd() * 50) - 25;
      expect(numberText(m, k)).toBe(new Decimal(`${m}e${k}`).toFixed());
    }
    expect(numberText(Number.MAX_SAFE_INTEGER, -3)).toBe('9007199254740.991');
    expect(numberText(-1200, 0)).toBe('-1200');
  });
});
