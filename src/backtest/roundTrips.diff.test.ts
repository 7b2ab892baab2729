/**
 * The round trips and the trade statistics summed from them are computed in core/bigDecimal.ts
 * values; here they are held to the decimal.js formulas they replace (kept below as the
 * reference), on random fills: both sides, several strategies and symbols, base, quote, other and
 * no fee assets, quantities that close part of a lot, whole lots or flip the position.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, ZERO } from '../core/decimal.js';
import { amountText, pricedTripsOf, roundTrips } from './roundTrips.js';
import { TripStore } from './tripStore.js';
import { PerSymbolBuilder } from './perSymbol.js';
import { roundStat } from './metrics.js';
import { TradeStatsBuilder } from './tearsheet.js';
import type { ReportFill, RoundTrip, StrategyMetrics } from './result.js';

interface Lot {
  readonly t: number;
  qty: Decimal;
  readonly price: Decimal;
  readonly feePerUnit: Decimal;
}

/** The decimal.js round trips (FIFO lots, fees in quote) the bigint ones must equal. */
function referenceTrips(fills: readonly ReportFill[]): RoundTrip[] {
  const out: RoundTrip[] = [];
  const books = new Map<string, { long: boolean; lots: Lot[] }>();
  for (const f of fills) {
    const key = `${f.strategy}\u0000${f.symbol}`;
    let b = books.get(key);
    if (b === undefined) books.set(key, (b = { long: f.side === 'BUY', lots: [] }));
    const base = f.symbol.slice(0, f.symbol.indexOf('_'));
    const quote = f.symbol.slice(f.symbol.indexOf('_') + 1);
    const price = new Decimal(f.price);
    let qty = new Decimal(f.qty);
    if (f.side === 'BUY' && f.feeAsset === base) qty = qty.minus(f.fee);
    const rawFee = new Decimal(f.fee);
    const fee = f.feeAsset === null || f.feeAsset === quote ? rawFee : f.feeAsset === base ? rawFee.mul(price) : ZERO;
    const opens = b.lots.length === 0 ? true : (f.side === 'BUY') === b.long;
    if (b.lots.length === 0) b.long = f.side === 'BUY';
    if (opens) {
      if (qty.gt(0)) b.lots.push({ t: f.t, qty, price, feePerUnit: fee.div(qty) });
      continue;
    }
    let left = qty;
    let closed = ZERO;
    let cost = ZERO;
    let entryFees = ZERO;
    let entryT = f.t;
    while (left.gt(0) && b.lots.length > 0) {
      const lot = b.lots[0] as Lot;
      const take = Decimal.min(lot.qty, left);
      if (closed.isZero()) entryT = lot.t;
      closed = closed.plus(take);
      cost = cost.plus(take.mul(lot.price));
      entryFees = entryFees.plus(take.mul(lot.feePerUnit));
      lot.qty = lot.qty.minus(take);
      left = left.minus(take);
      if (lot.qty.isZero()) b.lots.shift();
    }
    const exitFee = qty.isZero() ? ZERO : fee.mul(closed).div(qty);
    const fees = entryFees.plus(exitFee);
    const value = closed.mul(price);
    const gross = b.long ? value.minus(cost) : cost.minus(value);
    const pnl = gross.minus(fees);
    out.push({
      strategy: f.strategy,
      symbol: f.symbol,
      side: b.long ? 'LONG' : 'SHORT',
      entryT,
      exitT: f.t,
      qty: closed.toFixed(),
      entryPrice: amountText(cost.div(closed)),
      exitPrice: price.toFixed(),
      pnl: amountText(pnl),
      fees: amountText(fees),
      returnPct: cost.isZero() ? 0 : Number(pnl.div(cost).mul(100).toPrecision(10)),
    });
    if (left.gt(0)) {
      b.long = f.side === 'BUY';
      b.lots.push({ t: f.t, qty: left, price, feePerUnit: fee.minus(exitFee).div(left) });
    }
  }
  return out;
}

/** The decimal.js sums of the trade statistics over one strategy's trips and fills. */
function referenceSums(trips: readonly RoundTrip[], fills: readonly ReportFill[]) {
  const mean = (s: Decimal, n: number) => (n === 0 ? null : amountText(s.div(n)));
  const pnls = trips.map((t) => new Decimal(t.pnl));
  const wins = pnls.filter((p) => p.gt(0));
  const losses = pnls.filter((p) => p.lt(0));
  const sum = (xs: Decimal[]) => xs.reduce((a, x) => a.plus(x), ZERO);
  const grossLoss = sum(losses).abs();
  const perSymbol: Record<string, { netPnl: string; maxAbsPosition: string }> = {};
  for (const sym of [...new Set(fills.map((f) => f.symbol))].sort()) {
    let pos = ZERO;
    let maxAbs = ZERO;
    for (const f of fills.filter((x) => x.symbol === sym)) {
      let q = new Decimal(f.qty);
      if (f.side === 'BUY' && f.feeAsset === f.symbol.slice(0, f.symbol.indexOf('_'))) q = q.minus(f.fee);
      pos = pos.plus(f.side === 'BUY' ? q : q.neg());
      if (pos.abs().gt(maxAbs)) maxAbs = pos.abs();
    }
    perSymbol[sym] = { netPnl: sum(trips.filter((t) => t.symbol === sym).map((t) => new Decimal(t.pnl))).toFixed(), maxAbsPosition: maxAbs.toFixed() };
  }
  return {
    expectancy: mean(sum(pnls), pnls.length),
    avgWin: mean(sum(wins), wins.length),
    avgLoss: mean(sum(losses), losses.length),
    largestWin: wins.length === 0 ? null : Decimal.max(...wins).toFixed(),
    largestLoss: losses.length === 0 ? null : Decimal.min(...losses).toFixed(),
    profitFactor: grossLoss.isZero() ? null : roundStat(sum(wins).div(grossLoss).toNumber()),
    perSymbol,
  };
}

// Prices and sizes of exchange-like texts (a few digits either side of the point) and long ones.
const arbText = (maxInt: number) =>
  fc.oneof(
    { arbitrary: fc.tuple(fc.integer({ min: 0, max: maxInt }), fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 8 })).map(([i, f, k]) => new Decimal(`${i}.${String(f).padStart(8, '0').slice(0, k)}`).toFixed()), weight: 8 },
    { arbitrary: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 30, maxLength: 50 }).map((ds) => new Decimal(`0.${ds.join('')}`).toFixed()), weight: 1 },
  );
const arbFill = fc.record({
  strategy: fc.constantFrom('a', 'b'),
  symbol: fc.constantFrom('BTC_USDT', 'ETH_IDR'),
  side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
  price: arbText(70_000).filter((p) => new Decimal(p).gt(0)),
  qty: arbText(5),
  feeRate: fc.constantFrom('0', '0.001', '0.00075', '0.0003333'),
  feeKind: fc.constantFrom('base', 'quote', 'other', 'none'),
  dt: fc.integer({ min: 0, max: 600_000 }),
  // Sells (buys) exactly what is held long (short): whole lots closed, what a strategy selling its position does.
  closeAll: fc.boolean(),
});
const arbFills = fc.array(arbFill, { maxLength: 60 }).map((xs) => {
  let t = 0;
  const held = new Map<string, Decimal>();
  return xs.map((x): ReportFill => {
    t += x.dt;
    const [base, quote] = x.symbol.split('_') as [string, string];
    const key = `${x.strategy} ${x.symbol}`;
    const pos = held.get(key) ?? ZERO;
    const all = x.closeAll && (x.side === 'SELL' ? pos.gt(0) : pos.lt(0)) ? pos.abs().toFixed() : undefined;
    const qty = all ?? x.qty;
    const feeAsset = x.feeKind === 'base' ? base : x.feeKind === 'quote' ? quote : x.feeKind === 'other' ? 'BNB' : null;
    const fee = new Decimal(qty).mul(x.feeRate).mul(x.feeKind === 'quote' ? x.price : 1).toFixed();
    const got = x.side === 'BUY' && feeAsset === base ? new Decimal(qty).minus(fee) : new Decimal(qty);
    held.set(key, x.side === 'BUY' ? pos.plus(got) : pos.minus(got));
    return { t, strategy: x.strategy, symbol: x.symbol, side: x.side, price: x.price, qty, fee, feeAsset, maker: false };
  });
});

describe('round trips and trade statistics against decimal.js', () => {
  it('the trips are the decimal.js ones, text for text', () => {
    fc.assert(
      fc.property(arbFills, (fills) => {
        const want = referenceTrips(fills);
        expect(roundTrips(fills)).toEqual(want);
        // Kept as rows of the values the texts print, they read back as the same texts.
        const store = new TripStore();
        for (const { trip, amounts } of pricedTripsOf(fills)) store.push(trip, amounts);
        expect([...store]).toEqual(JSON.parse(JSON.stringify(want)));
        store.dispose();
      }),
      { numRuns: 1_500 },
    );
  });

  it('the sums, means, extremes and per-symbol figures are the decimal.js ones', () => {
    const m = { initialEquity: '1000', finalEquity: '1000', maxDrawdownPct: 0 } as StrategyMetrics;
    fc.assert(
      fc.property(arbFills, (all) => {
        const fills = all.filter((f) => f.strategy === 'a');
        const trips = roundTrips(fills);
        const span = { start: 0, end: (fills.at(-1)?.t ?? 0) + 1 };
        const b = new TradeStatsBuilder(span);
        for (const f of fills) b.fill(f);
        for (const t of trips) b.trip(t);
        const s = b.stats(m, 'BTC_USDT', { first: undefined, last: undefined }, { curve: [], intervalMs: 1000 });
        const ref = referenceSums(trips, fills);
        expect({ expectancy: s.expectancy, avgWin: s.avgWin, avgLoss: s.avgLoss, largestWin: s.largestWin, largestLoss: s.largestLoss }).toEqual({ expectancy: ref.expectancy, avgWin: ref.avgWin, avgLoss: ref.avgLoss, largestWin: ref.largestWin, largestLoss: ref.largestLoss });
        expect(s.profitFactor).toBe(ref.profitFactor);
        const ps = new PerSymbolBuilder(span);
        for (const f of fills) ps.fill(f);
        for (const t of trips) ps.trip(t);
        const got = Object.fromEntries(Object.entries(ps.stats()).map(([k, v]) => [k, { netPnl: v.netPnl, maxAbsPosition: v.maxAbsPosition }]));
        expect(got).toEqual(ref.perSymbol);
      }),
      { numRuns: 800 },
    );
  });
});
