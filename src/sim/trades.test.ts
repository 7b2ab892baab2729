import { describe, expect, it } from 'vitest';
import { TradeLog, type TradeRec } from './trades.js';

const BIG = 2n ** 53n;

/** A row with quote and fee chosen by index: every third one beyond 2^53 (the bigint side). */
function row(i: number): TradeRec {
  const big = i % 3 === 0;
  return {
    id: i + 1,
    orderId: 1000 + i,
    price: 6_000_000_000_000 + i,
    qty: 7 * i + 1,
    quote: big ? BIG * 3n + BigInt(i) : BigInt(i) * 1_000_003n,
    fee: big ? BIG + 1n + BigInt(i) : BigInt(i),
    isBuyer: i % 2 === 0,
    isMaker: i % 5 < 2,
    time: 1_700_000_000_000 + i,
  };
}

function push(log: TradeLog, r: TradeRec): void {
  log.push(r.id, r.orderId, r.price, r.qty, r.quote, r.fee, r.isBuyer, r.isMaker, r.time);
}

describe('TradeLog', () => {
  it('gives back every row exactly, quotes and fees on both sides of 2^53', () => {
    const log = new TradeLog(Infinity);
    const want: TradeRec[] = [];
    for (let i = 0; i < 500; i++) {
      want.push(row(i));
      push(log, row(i));
    }
    // The largest double-held value and the smallest bigint-held one.
    const edge = { ...row(500), quote: BIG - 1n, fee: BIG };
    want.push(edge);
    push(log, edge);
    expect(log.rows()).toEqual(want);
    expect(log.length).toBe(501);
  });

  it('keeps only the newest `limit` rows, across compactions', () => {
    const log = new TradeLog(37);
    const all: TradeRec[] = [];
    for (let i = 0; i < 1000; i++) {
      all.push(row(i));
      push(log, row(i));
      if (i % 97 === 0 || i === 999) expect(log.rows()).toEqual(all.slice(-37));
    }
  });

  it('keeps nothing with limit 0', () => {
    const log = new TradeLog(0);
    push(log, row(3));
    expect(log.rows()).toEqual([]);
  });
});
