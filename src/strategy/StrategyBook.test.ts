import { describe, expect, it } from 'vitest';
import type { FillEvent } from '../bus/events.js';
import { Decimal, ZERO } from '../core/decimal.js';
import { StrategyBook } from './StrategyBook.js';

/** A small deterministic generator (the same fills on every run). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

function fillEvent(symbol: string, side: 'BUY' | 'SELL', qty: Decimal, price: Decimal, commission: Decimal, commissionAsset: string | null): FillEvent {
  return { type: 'fill', E: 0, strategy: 's', clientId: 'c', orderId: 'o', symbol, side, tradeId: 1, price, qty, quoteQty: price.mul(qty), commission, commissionAsset, isMaker: false };
}

describe('StrategyBook fills and free balances', () => {
  it('books fills as the signed-amount formula does (x + qty x sign), value and digits', () => {
    const rnd = lcg(11);
    const budget = { USDT: new Decimal('1000'), BTC: new Decimal('0.5') };
    const book = new StrategyBook(budget);
    // The reference: the formula with the amount multiplied by +1 / -1.
    const pos = new Map<string, Decimal>();
    const cash = new Map<string, Decimal>(Object.entries(budget));
    const get = (m: Map<string, Decimal>, a: string) => m.get(a) ?? ZERO;
    for (let i = 0; i < 3000; i++) {
      const symbol = rnd() < 0.7 ? 'BTC_USDT' : 'ETHBTC';
      const [base, quote] = symbol.includes('_') ? (symbol.split('_') as [string, string]) : [symbol, ''];
      const side = rnd() < 0.5 ? 'BUY' : 'SELL';
      const qty = new Decimal(Math.floor(rnd() * 1e9)).div(1e8);
      const price = new Decimal(Math.floor(rnd() * 1e9)).div(1e2);
      const r = rnd();
      const commissionAsset = r < 0.4 ? quote || null : r < 0.6 ? base : r < 0.7 ? 'BNB' : r < 0.8 ? null : quote || null;
      const commission = commissionAsset === null ? ZERO : price.mul(qty).mul('0.00075');
      const e = fillEvent(symbol, side, qty, price, commission, commissionAsset);
      book.fill(e);
      const sign = side === 'BUY' ? 1 : -1;
      pos.set(base, get(pos, base).plus(qty.mul(sign)));
      cash.set(base, get(cash, base).plus(qty.mul(sign)));
      if (quote !== '') cash.set(quote, get(cash, quote).minus(e.quoteQty.mul(sign)));
      if (commissionAsset && !commission.isZero()) cash.set(commissionAsset, get(cash, commissionAsset).minus(commission));
      for (const a of ['BTC', 'USDT', 'ETHBTC', 'BNB']) {
        expect(book.position(a).toString(), `position ${a} after fill ${i}`).toBe(get(pos, a).toString());
        expect(book.cash(a).toString(), `cash ${a} after fill ${i}`).toBe(get(cash, a).toString());
      }
    }
  });

  it('answers free() without open orders as max(cash - locked, 0), for positive, zero, negative and long cash', () => {
    const values = ['1000', '0.00000001', '0', '-0', '-5', '-0.00000001', '123456789012345678901234567890.12345', '1234567890123456789012345678901234567890.123456789', '-1234567890123456789012345678901234567890.12345'];
    for (const v of values) {
      const book = new StrategyBook({ USDT: new Decimal(v) });
      const want = Decimal.max(book.cash('USDT').minus(book.locked('USDT')), ZERO);
      expect(book.free('USDT').toString(), `free of ${v}`).toBe(want.toString());
      expect(book.free('USDT').isNegative(), `sign of free of ${v}`).toBe(want.isNegative());
      const bal = book.balance('USDT');
      expect([bal.free.toString(), bal.locked.toString()], `balance of ${v}`).toEqual([want.toString(), '0']);
    }
    expect(new StrategyBook().free('BTC').toString()).toBe('0');
  });

  it('deducts open orders from free balances by their symbol\'s assets', () => {
    const book = new StrategyBook({ USDT: new Decimal('1000'), BTC: new Decimal('2') });
    book.placed({ kind: 'place', strategy: 's', intentId: 's:1', clientId: 's-1', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', quantity: new Decimal('0.5'), price: new Decimal('100') }, 0);
    book.placed({ kind: 'place', strategy: 's', intentId: 's:2', clientId: 's-2', symbol: 'BTC_USDT', side: 'SELL', orderType: 'LIMIT', quantity: new Decimal('0.25'), price: new Decimal('200') }, 0);
    expect(book.free('USDT').toString()).toBe('950');
    expect(book.free('BTC').toString()).toBe('1.75');
    expect(book.balance('USDT').locked.toString()).toBe('50');
    book.refused('s-1');
    book.refused('s-2');
    expect(book.free('USDT').toString()).toBe('1000');
    expect(book.free('BTC').toString()).toBe('2');
  });
});
