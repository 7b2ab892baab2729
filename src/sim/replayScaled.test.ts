import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fractionDigitsOf, scaledDecimal, scaledLevels, type FlatDepthLevels, type ScaledLevels } from '../core/scaledLevels.js';
import { FLOW_PD, FLOW_QD, applyFlowOp, flowEngine, flowScaled, replayFlow, type FlowOp } from './replayFlow.js';
import { book, makeEngine } from './testkit.js';
import type { FillModelName } from './types.js';

const levels = (priceScale: number, qtyScale: number, rows: [number, number][]): ScaledLevels => {
  const l = scaledLevels(Math.max(1, rows.length));
  l.n = rows.length;
  l.priceScale = priceScale;
  l.qtyScale = qtyScale;
  rows.forEach(([p, q], i) => {
    l.prices[i] = p;
    l.qtys[i] = q;
  });
  return l;
};
const none = levels(2, 3, []);
/** Both sides laid out in one buffer as a binary recording's pool holds them (after some padding). */
const flatOf = (bids: ScaledLevels, asks: ScaledLevels): FlatDepthLevels => {
  const buf = new Float64Array(3 + 2 * (bids.n + asks.n));
  const at = (l: ScaledLevels, from: number): void => {
    for (let i = 0; i < l.n; i++) {
      buf[from + i] = l.prices[i]!;
      buf[from + l.n + i] = l.qtys[i]!;
    }
  };
  at(bids, 3);
  at(asks, 3 + 2 * bids.n);
  return { buf, bidPrices: 3, bidQtys: 3 + bids.n, nBids: bids.n, askPrices: 3 + 2 * bids.n, askQtys: 3 + 2 * bids.n + asks.n, nAsks: asks.n, priceScale: bids.priceScale, qtyScale: bids.qtyScale };
};

describe('applyDepthDiffScaled', () => {
  it('acts exactly as applyDepthDiff with the same levels as strings, on randomized flows with own orders resting', () => {
    for (const seed of [1, 2, 3, 4]) {
      const viaStrings = flowEngine();
      const viaScaled = flowEngine();
      replayFlow(seed, 1500).forEach((op, i) => {
        applyFlowOp(viaStrings, op, i + 1, false);
        applyFlowOp(viaScaled, op, i + 1, true);
        expect(JSON.stringify(viaScaled.takeEvents()), `seed ${seed} step ${i} ${op.k}`).toBe(JSON.stringify(viaStrings.takeEvents()));
      });
      expect(book(viaScaled)).toEqual(book(viaStrings));
      expect(viaScaled.balances('a')).toEqual(viaStrings.balances('a'));
    }
  });

  it('acts exactly as applyDepthDiff with no market-data listener too (the side applies plain window levels itself)', () => {
    for (const seed of [1, 2, 3, 4]) {
      const run = (scaled: boolean): { events: string[]; engine: ReturnType<typeof flowEngine> } => {
        const engine = flowEngine({ bufferEvents: false });
        const events: string[] = [];
        engine.subscribe((ev) => events.push(JSON.stringify(ev)), { marketData: false });
        replayFlow(seed, 1500).forEach((op, i) => applyFlowOp(engine, op, i + 1, scaled));
        return { events, engine };
      };
      const viaStrings = run(false);
      const viaScaled = run(true);
      expect(viaScaled.events).toEqual(viaStrings.events);
      expect(book(viaScaled.engine)).toEqual(book(viaStrings.engine));
      expect(viaScaled.engine.balances('a')).toEqual(viaStrings.engine.balances('a'));
    }
  });

  it('applyDepthDiffFlat (both sides in one buffer at offsets) acts exactly as applyDepthDiffScaled, with and without a listener', () => {
    for (const seed of [1, 2]) {
      for (const listener of [false, true]) {
        const run = (flat: boolean): { events: string[]; engine: ReturnType<typeof flowEngine> } => {
          const engine = flowEngine(listener ? { bufferEvents: false } : {});
          const events: string[] = [];
          if (listener) engine.subscribe((ev) => events.push(JSON.stringify(ev)), { marketData: false });
          replayFlow(seed, 1200).forEach((op, i) => {
            const sides = op.k === 'diff' ? [flowScaled(op.bids, op.extraScale), flowScaled(op.asks, op.extraScale)] : [];
            const [b, a] = sides;
            // Flat levels share one pair of scales (a binary diff's always do).
            if (flat && b !== undefined && a !== undefined && b.priceScale === a.priceScale && b.qtyScale === a.qtyScale) engine.applyDepthDiffFlat('BTC_USDT', flatOf(b, a), i + 1);
            else applyFlowOp(engine, op, i + 1, true);
            if (!listener) events.push(JSON.stringify(engine.takeEvents()));
          });
          return { events, engine };
        };
        const viaScaled = run(false);
        const viaFlat = run(true);
        expect(viaFlat.events).toEqual(viaScaled.events);
        expect(book(viaFlat.engine)).toEqual(book(viaScaled.engine));
        expect(viaFlat.engine.balances('a')).toEqual(viaScaled.engine.balances('a'));
      }
    }
  });

  it('drops stale levels exactly as applyDepthDiff when own orders rest beyond the replayed touch and many levels cross them', () => {
    // An own BUY at 100.50 tops the bids after the replayed bids fell away; then diffs bring asks
    // below it best first, worst first and mixed, with replayed bids between them (stale: dropped).
    const lv = (p: number, q: number): { price: string; qty: string; p: number; q: number } => ({ p, q, price: fmt2(p), qty: (q / 1e5).toFixed(5) });
    const fmt2 = (p: number): string => (p / 100).toFixed(2);
    const asks = (ps: number[]): ReturnType<typeof lv>[] => ps.map((p, i) => lv(p, 1000 + i));
    const ops: FlowOp[] = [
      { k: 'snapshot', bids: [lv(10050, 5000), lv(10040, 5000)], asks: [lv(10060, 5000), lv(10070, 5000)], extraScale: 0 },
      { k: 'limit', acct: 'a', side: 'BUY', price: '100.50', qty: '1.00000', tif: 'GTC', ice: false },
      { k: 'diff', bids: [lv(10050, 0), lv(10040, 0), lv(9990, 700), lv(9980, 800), lv(9970, 900)], asks: [], extraScale: 0 },
      { k: 'diff', bids: [], asks: asks([9985, 9987, 9995, 10010, 10060]), extraScale: 0 },
      { k: 'diff', bids: [lv(9960, 100), lv(9950, 100)], asks: asks([9999, 9975, 9965, 9955]), extraScale: 1 },
      { k: 'diff', bids: [lv(9940, 100), lv(9930, 100), lv(9920, 100)], asks: asks([9935, 9921, 9945, 9925]), extraScale: -1 },
    ];
    const viaStrings = flowEngine();
    const viaScaled = flowEngine();
    ops.forEach((op, i) => {
      applyFlowOp(viaStrings, op, i + 1, false);
      applyFlowOp(viaScaled, op, i + 1, true);
      expect(JSON.stringify(viaScaled.takeEvents()), `step ${i} ${op.k}`).toBe(JSON.stringify(viaStrings.takeEvents()));
      expect(book(viaScaled), `step ${i}`).toEqual(book(viaStrings));
    });
    expect(viaScaled.balances('a')).toEqual(viaStrings.balances('a'));
  });

  it('applyTradeScaled acts exactly as applyTrade with the same values as strings, and refuses what does not fit', () => {
    for (const seed of [3, 4]) {
      const run = (scaled: boolean): { events: string; engine: ReturnType<typeof flowEngine> } => {
        const engine = flowEngine();
        const events: string[] = [];
        replayFlow(seed, 1500).forEach((op, i) => {
          if (scaled && op.k === 'trade') {
            // At the string's own decimals plus one (a trailing zero), converted by the engine.
            const ps = fractionDigitsOf(op.price) + 1;
            const qs = fractionDigitsOf(op.qty) + 1;
            expect(engine.applyTradeScaled('BTC_USDT', scaledDecimal(op.price, ps), ps, scaledDecimal(op.qty, qs), qs, op.m, i + 1)).toBe(true);
          } else applyFlowOp(engine, op, i + 1, true);
          events.push(JSON.stringify(engine.takeEvents()));
        });
        return { events: events.join('\n'), engine };
      };
      const viaStrings = run(false);
      const viaScaled = run(true);
      expect(viaScaled.events).toBe(viaStrings.events);
      expect(book(viaScaled.engine)).toEqual(book(viaStrings.engine));
      expect(viaScaled.engine.balances('a')).toEqual(viaStrings.engine.balances('a'));
    }
    const e = makeEngine();
    // More price decimals than the symbol's (100.001), a zero quantity, a fraction: refused, nothing recorded.
    expect(e.applyTradeScaled('BTC_USDT', 100_001, 3, 1, 0, false, 1)).toBe(false);
    expect(e.applyTradeScaled('BTC_USDT', 100, 0, 0, 0, false, 1)).toBe(false);
    expect(e.applyTradeScaled('BTC_USDT', 100.5, 0, 1, 0, false, 1)).toBe(false);
    expect(e.takeEvents()).toEqual([]);
    expect(e.applyTradeScaled('BTC_USDT', 10_000, 2, 1, 0, true, 2)).toBe(true);
  });

  it('applyDepthSnapshotScaled acts exactly as applyDepthSnapshot with the same levels as strings, with own orders resting', () => {
    const atFlowScales = (rows: readonly { p: number; q: number }[]): ScaledLevels => levels(FLOW_PD, FLOW_QD, rows.map((l) => [l.p, l.q]));
    for (const seed of [5, 6, 7]) {
      for (const listener of [false, true]) {
        const run = (scaled: boolean): { events: string[]; engine: ReturnType<typeof flowEngine> } => {
          const engine = flowEngine(listener ? { bufferEvents: false } : {});
          const events: string[] = [];
          if (listener) engine.subscribe((ev) => events.push(JSON.stringify(ev)), { marketData: false });
          replayFlow(seed, 1200).forEach((op, i) => {
            if (scaled && op.k === 'snapshot') expect(engine.applyDepthSnapshotScaled('BTC_USDT', atFlowScales(op.bids), atFlowScales(op.asks), i + 1)).toBe(true);
            else applyFlowOp(engine, op, i + 1, false);
            if (!listener) events.push(JSON.stringify(engine.takeEvents()));
          });
          return { events, engine };
        };
        const viaStrings = run(false);
        const viaScaled = run(true);
        expect(viaScaled.events).toEqual(viaStrings.events);
        expect(book(viaScaled.engine)).toEqual(book(viaStrings.engine));
        expect(viaScaled.engine.balances('a')).toEqual(viaStrings.engine.balances('a'));
      }
    }
    // Finer scales than the symbol's, or a level beyond 2^53 there: refused, nothing changed.
    const e = makeEngine();
    e.applyDepthDiff('BTC_USDT', { bids: [{ price: '99', qty: '1' }], asks: [] }, 1);
    expect(e.applyDepthSnapshotScaled('BTC_USDT', levels(4, 3, [[980_000, 1000]]), none, 2)).toBe(false);
    expect(e.applyDepthSnapshotScaled('BTC_USDT', levels(0, 0, [[98, 1]]), levels(0, 0, [[2 ** 52, 1]]), 2)).toBe(false);
    expect(book(e).bids).toEqual(['99x1']);
    // Coarser scales are converted exactly, as the strings would be parsed.
    const viaStrings = makeEngine();
    viaStrings.applyDepthSnapshot('BTC_USDT', { bids: [{ price: '98', qty: '1.5' }], asks: [{ price: '101', qty: '2' }] }, 2);
    expect(e.applyDepthSnapshotScaled('BTC_USDT', levels(0, 1, [[98, 15]]), levels(0, 0, [[101, 2]]), 2)).toBe(true);
    expect(book(e)).toEqual(book(viaStrings));
  });

  it('converts other scales exactly: more decimals divide only when nothing is cut, fewer multiply', () => {
    const e = makeEngine();
    e.applyDepthDiffScaled('BTC_USDT', levels(4, 5, [[990_000, 150_000]]), levels(0, 0, [[101, 2]]), 1);
    expect(book(e)).toEqual({ bids: ['99x1.5'], asks: ['101x2'] });
  });

  it('refuses what the symbol scales cannot hold with the string path error, after applying the levels before it', () => {
    const viaStrings = makeEngine();
    const viaScaled = makeEngine();
    const strErr = (): void => viaStrings.applyDepthDiff('BTC_USDT', { bids: [{ price: '99', qty: '1' }, { price: '98', qty: '0.0001' }], asks: [] }, 1);
    const scaledErr = (): void => viaScaled.applyDepthDiffScaled('BTC_USDT', levels(2, 4, [[9900, 10_000], [9800, 1]]), none, 1);
    expect(strErr).toThrow(RangeError);
    expect(scaledErr).toThrow(RangeError);
    expect(() => viaScaled.applyDepthDiffScaled('BTC_USDT', levels(2, 4, [[9800, 1]]), none, 2)).toThrow('BTC_USDT replayed level 98 x 0.0001 does not fit the symbol');
    expect(() => viaStrings.applyDepthDiff('BTC_USDT', { bids: [{ price: '98', qty: '0.0001' }], asks: [] }, 2)).toThrow('BTC_USDT replayed level 98 x 0.0001 does not fit the symbol');
    expect(book(viaScaled)).toEqual(book(viaStrings));
    expect(book(viaScaled).bids).toEqual(['99x1']);
    // Beyond the safe-integer range after scaling, or not an integer at all.
    expect(() => viaScaled.applyDepthDiffScaled('BTC_USDT', levels(0, 0, [[2 ** 52, 1]]), none, 3)).toThrow(/does not fit/);
    expect(() => viaScaled.applyDepthDiffScaled('BTC_USDT', levels(2, 3, [[9900.5, 1]]), none, 3)).toThrow(/does not fit/);
    // At the symbol's own scales (nothing converted): still only non-negative safe integers.
    expect(() => viaScaled.applyDepthDiffScaled('BTC_USDT', levels(2, 3, [[2 ** 53, 1]]), none, 3)).toThrow(/does not fit/);
    expect(() => viaScaled.applyDepthDiffScaled('BTC_USDT', none, levels(2, 3, [[10_100, -1]]), 3)).toThrow('BTC_USDT replayed level 101 x -0.001 does not fit the symbol');
    expect(() => viaScaled.applyDepthDiffScaled('BTC_USDT', none, levels(2, 3, [[10_100, 0.5]]), 3)).toThrow(/does not fit/);
    expect(book(viaScaled)).toEqual(book(viaStrings));
  });
});

/**
 * Event sequences of seeded flows, hashed, so any change of the replay's events (buffered, or only
 * the account events a marketData: false listener gets with no buffer) shows up here. GOLDEN was
 * recorded from the engine before its replayed depth moved to the price ladder and holds in the
 * anchor-compatible fill model; GOLDEN_KANCIL pins the default model (replayed trades use up
 * replayed liquidity).
 */
describe('replay event sequences', () => {
  const hash = (seed: number, n: number, accountOnly: boolean, fillModel: FillModelName): string => {
    const h = createHash('sha256');
    const e = flowEngine(accountOnly ? { bufferEvents: false, fillModel } : { fillModel });
    if (accountOnly) e.subscribe((ev) => h.update(JSON.stringify(ev)), { marketData: false });
    replayFlow(seed, n).forEach((op, i) => {
      applyFlowOp(e, op, i + 1, i % 2 === 0);
      if (!accountOnly) for (const ev of e.takeEvents()) h.update(JSON.stringify(ev));
    });
    h.update(JSON.stringify([book(e), e.balances('a'), e.balances('b'), e.lastUpdateId('BTC_USDT')]));
    return h.digest('hex');
  };
  it('are unchanged', () => {
    expect([hash(11, 3000, false, 'hftbacktest'), hash(12, 3000, false, 'hftbacktest'), hash(13, 3000, true, 'hftbacktest')]).toEqual(GOLDEN);
    expect([hash(11, 3000, false, 'kancil'), hash(12, 3000, false, 'kancil'), hash(13, 3000, true, 'kancil')]).toEqual(GOLDEN_KANCIL);
  });
});

const GOLDEN = [
  '0e18e83a662ff35f43d266e1b5f99cc1d78b443f83e0e7ca720c4ff5835d0614',
  '7e0773916ce6c752d447ea2954a19e128a32f1e354827f279a0f56250da2ced5',
  '5ece9acbd9aee788bd930a1dc05353c1f7935091c7ccce31b3dca0daec638d16',
];

const GOLDEN_KANCIL = [
  '1ecb4606168d67b46b0ee14d76fd2fd23daf847090787d76295e4495eecbc096',
  '1a5738c1cde612f5b558bde729b0d5fb37530d108777852cca168c224d0a4bf6',
  'ce78df1292f42374b0a4573b6e6a7e9c20abbf4e7cdbe52a8d579bd1e0bba82e',
];
