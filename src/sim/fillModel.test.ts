/**
 * The fill model (README: "The fill model"): what replayed trades and diffs let own orders fill, in
 * the kancil model (the default) and the anchor-compatible hftbacktest one, and the queue models.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { BookLevel } from '../core/types.js';
import type { MatchingEngine } from './engine.js';
import { book, makeEngine, place, reports } from './testkit.js';
import type { FillModelName, QueueModelConfig } from './types.js';

const lv = (p: string, q: string): BookLevel => ({ price: new Decimal(p), qty: new Decimal(q) });
/** A replayed trade; `buyerAggressor`: a buyer took the asks. */
const T = (p: string, q: string, buyerAggressor: boolean, time?: number) => ({ price: p, qty: q, isBuyerMaker: !buyerAggressor, ...(time !== undefined ? { time } : {}) });

function engine(fillModel?: FillModelName, queueModel?: QueueModelConfig): MatchingEngine {
  return makeEngine({ config: { ...(fillModel ? { fillModel } : {}), ...(queueModel ? { queueModel } : {}) } });
}

/** Fills of an account's reports as `qty@price`. */
function fills(e: MatchingEngine): string[] {
  return reports(e.takeEvents()).flatMap((r) => {
    const m = / TRADE\/\S+ (\S+@\S+)/.exec(r);
    return m ? [m[1]!] : [];
  });
}

describe('replayed trades use up replayed liquidity (kancil)', () => {
  it('a market buy in the same millisecond as a buyer-aggressor trade gets only what that trade left', () => {
    for (const [model, want] of [
      ['kancil', ['2@100', '2@101']],
      ['hftbacktest', ['4@100']],
    ] as const) {
      const e = engine(model);
      e.applyDepthSnapshot('BTC_USDT', { bids: [lv('99', '5')], asks: [lv('100', '5'), lv('101', '5')] }, 1000);
      e.applyTrade('BTC_USDT', T('100', '3', true, 1001), 1001);
      e.takeEvents();
      place(e, 'b', 'BUY', { type: 'MARKET', quantity: '4' }, 1001);
      expect(fills(e), model).toEqual(want);
    }
  });

  it('a trade through the touch removes the better replayed levels: no fill at a price already traded through', () => {
    const e = engine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('99', '5')], asks: [lv('100', '5'), lv('101', '5')] }, 1000);
    // A buyer printed at 101: the asks at 100 cannot still be there (the taker would have had them first).
    e.applyTrade('BTC_USDT', T('101', '1', true, 1001), 1001);
    expect(book(e).asks).toEqual(['101x4']);
    e.takeEvents();
    place(e, 'b', 'BUY', { type: 'MARKET', quantity: '2' }, 1001);
    expect(fills(e)).toEqual(['2@101']);
    // The anchor model leaves the book as it was: the same buy fills at 100.
    const h = engine('hftbacktest');
    h.applyDepthSnapshot('BTC_USDT', { bids: [lv('99', '5')], asks: [lv('100', '5'), lv('101', '5')] }, 1000);
    h.applyTrade('BTC_USDT', T('101', '1', true, 1001), 1001);
    expect(book(h).asks).toEqual(['100x5', '101x5']);
    h.takeEvents();
    place(h, 'b', 'BUY', { type: 'MARKET', quantity: '2' }, 1001);
    expect(fills(h)).toEqual(['2@100']);
  });

  it('a later diff restates the levels a trade took', () => {
    const e = engine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [], asks: [lv('100', '5'), lv('101', '5')] }, 1000);
    e.applyTrade('BTC_USDT', T('101', '6', true, 1001), 1001);
    expect(book(e).asks).toEqual([]);
    e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '2'), lv('101', '3')] }, 1100);
    expect(book(e).asks).toEqual(['100x2', '101x3']);
  });

  it('a trade the last diff already reflects takes nothing off the book again', () => {
    const e = engine();
    e.applyDepthSnapshot('BTC_USDT', { bids: [], asks: [lv('100', '5')] }, 1000);
    // The diff stamped 1100 shows the level after the trade of 1090 took 3.
    e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '2')] }, 1100);
    e.applyTrade('BTC_USDT', T('100', '3', true, 1090), 1101);
    expect(book(e).asks).toEqual(['100x2']);
    // A trade newer than the diff takes its quantity.
    e.applyTrade('BTC_USDT', T('100', '1', true, 1101), 1101);
    expect(book(e).asks).toEqual(['100x1']);
    // Without a time a trade happened when it is applied: after the diff here, before it next.
    e.applyTrade('BTC_USDT', T('100', '1', true), 1102);
    expect(book(e).asks).toEqual([]);
    e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '4')] }, 1200);
    e.applyTrade('BTC_USDT', T('100', '1', true), 1200);
    expect(book(e).asks).toEqual(['100x4']);
  });

  it('the scaled trade entry applies the same rule', () => {
    const a = engine();
    const b = engine();
    for (const e of [a, b]) e.applyDepthSnapshot('BTC_USDT', { bids: [], asks: [lv('100', '5'), lv('101', '5')] }, 1000);
    a.applyTrade('BTC_USDT', T('101', '2', true, 1001), 1001);
    expect(b.applyTradeScaled('BTC_USDT', 10100, 2, 2000, 3, false, 1001, 1001)).toBe(true);
    expect(book(b)).toEqual(book(a));
    expect(book(a).asks).toEqual(['101x3']);
  });
});

describe('queue probes', () => {
  /** An own sell of 1 at 100 behind 10 replayed, on an engine of this model. */
  function queued(fillModel?: FillModelName, queueModel?: QueueModelConfig): { e: MatchingEngine; id: string } {
    const e = engine(fillModel, queueModel);
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('99', '5')], asks: [lv('100', '10')] }, 1000);
    const id = place(e, 'a', 'SELL', { price: '100', quantity: '1' }, 1000);
    e.takeEvents();
    return { e, id };
  }

  it('queue ahead: trades at the price eat the replayed queue ahead first', () => {
    for (const model of ['kancil', 'hftbacktest'] as const) {
      const { e } = queued(model);
      e.applyTrade('BTC_USDT', T('100', '9.5', true, 1001), 1001);
      expect(fills(e), model).toEqual([]);
      e.applyTrade('BTC_USDT', T('100', '1', true, 1002), 1002);
      expect(fills(e), model).toEqual(['0.5@100']);
    }
  });

  it('cancels ahead: riskAverse moves up only to the level quantity; powerProb by the power-prob estimate', () => {
    const ahead = (queueModel?: QueueModelConfig): string[] => {
      const { e } = queued('kancil', queueModel);
      // 10 more queue behind us, then the level shrinks by 6 (no trade: cancels).
      e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '20')] }, 1001);
      e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '14')] }, 1002);
      // Probe the queue ahead with trades of 1 until ours fills.
      const out: string[] = [];
      for (let i = 0; i < 12 && out.length === 0; i++) {
        e.applyTrade('BTC_USDT', T('100', '1', true, 1003 + i), 1003 + i);
        if (fills(e).length > 0) out.push(`filled after ${i + 1}`);
      }
      return out;
    };
    // riskAverse: the 6 came from behind: 10 still ahead, the 11th trade of 1 fills us.
    expect(ahead()).toEqual(['filled after 11']);
    // powerProb x^2, 10 ahead and 10 behind: half the decrease from ahead: 7 ahead.
    expect(ahead({ type: 'powerProb', power: 2 })).toEqual(['filled after 8']);
  });

  it('diff then trade: a trade the diff reflects does not shrink the queue twice (kancil); the anchor model counts it twice', () => {
    const run = (model: FillModelName): string[] => {
      const { e } = queued(model);
      // The diff stamped 1100 reflects the trade of 1090 that took 3 from the front: 7 left.
      e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '7')] }, 1100);
      e.applyTrade('BTC_USDT', T('100', '3', true, 1090), 1101);
      const afterReflected = fills(e);
      // 7 are still ahead: a new trade of 7 leaves us unfilled, one more fills us.
      e.applyTrade('BTC_USDT', T('100', '7', true, 1102), 1102);
      const after7 = fills(e);
      e.applyTrade('BTC_USDT', T('100', '1', true, 1103), 1103);
      return [...afterReflected, `after 7: ${after7.join(',') || '-'}`, ...fills(e)];
    };
    expect(run('kancil')).toEqual(['after 7: -', '1@100']);
    // hftbacktest/RiskAdverse: the reflected trade moves us up 3 more, so the trade of 7 fills us.
    expect(run('hftbacktest')).toEqual(['after 7: 1@100']);
  });

  it('diff then trade: the part of a reflected trade beyond the queue that stood ahead fills us', () => {
    const { e } = queued();
    // The trade of 1090 took 10.5: all 10 ahead, then half of the queue position we hold.
    e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '0')] }, 1100);
    e.applyTrade('BTC_USDT', T('100', '10.5', true, 1090), 1101);
    expect(fills(e)).toEqual(['0.5@100']);
  });

  it('trade then diff: the diff that reflects an applied trade moves nobody again', () => {
    for (const model of ['kancil', 'hftbacktest'] as const) {
      const { e } = queued(model);
      e.applyTrade('BTC_USDT', T('100', '3', true, 1001), 1001);
      e.applyDepthDiff('BTC_USDT', { bids: [], asks: [lv('100', '7')] }, 1100);
      e.applyTrade('BTC_USDT', T('100', '7', true, 1101), 1101);
      expect(fills(e), model).toEqual([]);
      e.applyTrade('BTC_USDT', T('100', '1', true, 1102), 1102);
      expect(fills(e), model).toEqual(['1@100']);
    }
  });
});

describe('configuration', () => {
  it('refuses an unknown fill model or a power outside 1..10, naming the value', () => {
    expect(() => engine('other' as FillModelName)).toThrow(/fillModel other/);
    expect(() => engine(undefined, { type: 'powerProb', power: 0 })).toThrow(/power 0/);
    expect(() => engine(undefined, { type: 'powerProb', power: 1.5 })).toThrow(/power 1.5/);
  });
});
