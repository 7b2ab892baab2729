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
  return { type: 'fill', E: 0, strategy: 's', clientId: 'c', orderId: 'o', symbol, side, tradeId: '1', price, qty, quoteQty: price.mul(qty), commission, commissionAsset, isMaker: false };
}

const TWO_52 = new Decimal(2).pow(52);

/** freeUnits is NaN (free() must answer) or floor(free x 10^scale), +-Infinity from 2^52 on. */
function expectUnits(book: StrategyBook, asset: string, scale: number, where: string): boolean {
  const got = book.freeUnits(asset, scale);
  if (Number.isNaN(got)) return false;
  const f = book.free(asset).mul(new Decimal(10).pow(scale)).floor();
  expect(got, `freeUnits ${asset} scale ${scale} ${where}`).toBe(f.gte(TWO_52) ? Infinity : f.toNumber());
  return true;
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
    for (let i = 0; i < 1500; i++) {
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
      // The position is net of commissions taken from the fill's base asset, and of no other.
      if (commissionAsset === base && !commission.isZero()) pos.set(base, get(pos, base).minus(commission));
      for (const a of ['BTC', 'USDT', 'ETHBTC', 'BNB']) {
        expect(book.position(a).toString(), `position ${a} after fill ${i}`).toBe(get(pos, a).toString());
        expect(book.cash(a).toString(), `cash ${a} after fill ${i}`).toBe(get(cash, a).toString());
      }
    }
  });

  it('differential: freeUnits is floor(free x 10^scale) from the running sums, with fills, fees of many decimals and open orders', () => {
    const rnd = lcg(23);
    // A budget past 2^53 units once fees of 10-12 decimals move it (the sums' wide form).
    const book = new StrategyBook({ USDT: new Decimal('1000000'), BTC: new Decimal('10') });
    const open: string[] = [];
    let seq = 0;
    let answered = 0;
    for (let i = 0; i < 2000; i++) {
      const side = rnd() < 0.5 ? 'BUY' : 'SELL';
      const qty = new Decimal(Math.floor(rnd() * 1e4) + 1).div(1e6);
      const price = new Decimal(Math.floor(rnd() * 1e7) + 5e6).div(1e2);
      const r = rnd();
      if (r < 0.4) {
        const rate = rnd() < 0.5 ? '0.0001' : '0.00075';
        const quote = price.mul(qty);
        book.fill(fillEvent('BTC_USDT', side, qty, price, side === 'BUY' ? qty.mul(rate) : quote.mul(rate), side === 'BUY' ? 'BTC' : 'USDT'));
      } else if (r < 0.7 || open.length === 0) {
        const clientId = `s-${++seq}`;
        book.placed({ kind: 'place', strategy: 's', intentId: `s:${seq}`, clientId, symbol: 'BTC_USDT', side, orderType: 'LIMIT', quantity: qty.mul(50), price }, i);
        open.push(clientId);
      } else {
        book.refused(open.shift() as string);
      }
      for (const a of ['USDT', 'BTC', 'ETH']) for (const scale of [0, 2, 8, 12, 20, -3]) if (expectUnits(book, a, scale, `after step ${i}`)) answered++;
    }
    // Every answer came from integers: the cash's wide form and the locks' integer form.
    expect(answered).toBe(2000 * 3 * 6);
  });

  it('reads a position asked for before its first fill, and another asset between, as of the last fill', () => {
    const book = new StrategyBook({ USDT: new Decimal('1000') });
    const p = new Decimal('100');
    const seen: string[] = [];
    const read = (asset: string): number => seen.push(book.position(asset).toFixed());
    read('BTC');
    book.fill(fillEvent('BTC_USDT', 'BUY', new Decimal('0.5'), p, new Decimal('0'), 'BTC'));
    read('BTC');
    read('ETH');
    book.fill(fillEvent('ETH_USDT', 'BUY', new Decimal('2'), p, new Decimal('0'), 'ETH'));
    read('ETH');
    book.fill(fillEvent('BTC_USDT', 'SELL', new Decimal('0.2'), p, new Decimal('0'), 'USDT'));
    read('BTC');
    expect(seen).toEqual(['0', '0.5', '0', '2', '0.3']);
  });

  it('nets the position of commissions charged in the base asset, not of quote or third-asset ones', () => {
    const book = new StrategyBook({ USDT: new Decimal('1000') });
    const p = new Decimal('60000');
    // A buy whose commission the exchange takes from the base received: 0.001 bought, 0.000999 held.
    book.fill(fillEvent('BTC_USDT', 'BUY', new Decimal('0.001'), p, new Decimal('0.000001'), 'BTC'));
    expect(book.position('BTC').toFixed()).toBe('0.000999');
    expect(book.position('BTC').eq(book.cash('BTC'))).toBe(true);
    // Selling the whole position leaves exactly nothing; its quote commission is not a position.
    book.fill(fillEvent('BTC_USDT', 'SELL', new Decimal('0.000999'), p, new Decimal('0.05994'), 'USDT'));
    expect(book.position('BTC').toFixed()).toBe('0');
    expect(book.position('USDT').toFixed()).toBe('0');
    // A fee in a third asset is paid from that asset's cash and moves no position.
    book.fill(fillEvent('BTC_USDT', 'BUY', new Decimal('0.002'), p, new Decimal('0.01'), 'BNB'));
    expect(book.position('BTC').toFixed()).toBe('0.002');
    expect(book.position('BNB').toFixed()).toBe('0');
    expect(book.cash('BNB').toFixed()).toBe('-0.01');
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
      expectUnits(book, 'USDT', 8, `of ${v}`);
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

describe('StrategyBook locked balances', () => {
  /** The plain formula over the open orders: the reference of locked(). */
  function lockedRef(orders: readonly { symbol: string; side: string; price?: Decimal; quantity?: Decimal; cumQty: Decimal; quoteOrderQty?: Decimal; cumQuoteQty: Decimal }[], asset: string): Decimal {
    let sum = ZERO;
    for (const o of orders) {
      const [base, quote] = o.symbol.includes('_') ? (o.symbol.split('_') as [string, string]) : [o.symbol, ''];
      const left = o.quantity ? o.quantity.minus(o.cumQty) : ZERO;
      if (o.side === 'SELL' && base === asset) sum = sum.plus(left);
      else if (o.side === 'BUY' && quote === asset) {
        if (o.quoteOrderQty) sum = sum.plus(Decimal.max(o.quoteOrderQty.minus(o.cumQuoteQty), ZERO));
        else if (o.price) sum = sum.plus(o.price.mul(left));
      }
    }
    return Decimal.max(sum, ZERO);
  }

  /** The plain loop of openQty: unfilled quantity of the open orders on a symbol side. */
  function openQtyRef(orders: readonly { symbol: string; side: string; quantity?: Decimal; cumQty: Decimal }[], symbol: string, side: string): Decimal {
    let q = ZERO;
    for (const o of orders) if (o.symbol === symbol && o.side === side && o.quantity) q = q.plus(o.quantity.minus(o.cumQty));
    return q;
  }

  it.each([
    ['exchange-sized amounts', 0],
    ['some quantities and prices beyond the running sums\' integer form', 0.1],
  ])('equals the plain formula while orders are placed, partly filled, replaced and closed (%s)', (_name, longShare) => {
    const rnd = lcg(5);
    const long = (x: Decimal): Decimal => (longShare > 0 && rnd() < longShare ? x.plus('0.000000000000000000000000000123456789') : x);
    const book = new StrategyBook({ USDT: new Decimal('100000'), BTC: new Decimal('3'), ETHBTC: new Decimal('1') });
    const live = new Map<string, { symbol: string; side: 'BUY' | 'SELL'; price?: Decimal; quantity?: Decimal; cumQty: Decimal; quoteOrderQty?: Decimal; cumQuoteQty: Decimal }>();
    let seq = 0;
    for (let i = 0; i < 600; i++) {
      const r = rnd();
      const ids = [...live.keys()];
      if (r < 0.45 || ids.length === 0) {
        const clientId = `s-${++seq}`;
        const symbol = rnd() < 0.8 ? 'BTC_USDT' : 'ETHBTC';
        const side: 'BUY' | 'SELL' = rnd() < 0.5 ? 'BUY' : 'SELL';
        const quantity = long(new Decimal(Math.floor(rnd() * 1e6) + 1).div(1e5));
        const price = long(new Decimal(Math.floor(rnd() * 1e7) + 1).div(1e2));
        const byQuote = side === 'BUY' && rnd() < 0.2;
        const o = byQuote ? { symbol, side, cumQty: ZERO, quoteOrderQty: price, cumQuoteQty: ZERO } : { symbol, side, price, quantity, cumQty: ZERO, cumQuoteQty: ZERO };
        book.placed({ kind: 'place', strategy: 's', intentId: `s:${seq}`, clientId, orderType: byQuote ? 'MARKET' : 'LIMIT', ...o }, i);
        live.set(clientId, o);
      } else {
        const clientId = ids[Math.floor(rnd() * ids.length)] as string;
        const o = live.get(clientId)!;
        const state = rnd() < 0.3 ? 'FILLED' : rnd() < 0.2 ? 'CANCELED' : 'PARTIALLY_FILLED';
        const cumQty = o.quantity ? o.quantity.mul(Math.floor(rnd() * 100) / 100) : ZERO;
        // Up to 1.05 x quoteOrderQty: the exchange may take the closer notional above the amount.
        const cumQuoteQty = o.quoteOrderQty ? o.quoteOrderQty.mul(Math.floor(rnd() * 106) / 100) : ZERO;
        book.update({ type: 'orderUpdate', E: i, strategy: 's', clientId, orderId: `o${clientId}`, symbol: o.symbol, side: o.side, orderType: o.quoteOrderQty ? 'MARKET' : 'LIMIT', state, price: o.price, quantity: o.quantity, cumQty, cumQuoteQty });
        if (state === 'PARTIALLY_FILLED') live.set(clientId, { ...o, cumQty, cumQuoteQty });
        else live.delete(clientId);
      }
      for (const a of ['USDT', 'BTC', 'ETHBTC', '']) {
        const want = lockedRef([...live.values()], a);
        expect(book.locked(a).toString(), `locked ${a} at step ${i}`).toBe(want.toString());
        expect(book.free(a).toString(), `free ${a} at step ${i}`).toBe(Decimal.max(book.cash(a).minus(want), ZERO).toString());
        for (const scale of [0, 4, 8]) expectUnits(book, a, scale, `at step ${i}`);
      }
      for (const sym of ['BTC_USDT', 'ETHBTC']) {
        for (const side of ['BUY', 'SELL'] as const) expect(book.openQty(sym, side).toString(), `openQty ${sym} ${side} at step ${i}`).toBe(openQtyRef([...live.values()], sym, side).toString());
      }
    }
    expect(seq).toBeGreaterThan(150);
  });
});

describe('StrategyBook locks of stop orders', () => {
  const stopBuy = { kind: 'place', strategy: 's', intentId: 'i1', clientId: 'c1', symbol: 'BTC_IDR', side: 'BUY', orderType: 'STOP_LOSS', quantity: new Decimal('0.001'), stopPrice: new Decimal('1000000000') } as const;

  it('a STOP_LOSS buy (no limit price) holds stopPrice x quantity of the quote, as the exchange locks it, from placement to its end', () => {
    const book = new StrategyBook({ IDR: new Decimal('1500000') });
    book.placed(stopBuy, 1);
    // Without the hold the same 1,000,000 IDR would pass the next order's balance check a second time.
    expect([book.balance('IDR').free.toFixed(), book.balance('IDR').locked.toFixed()]).toEqual(['500000', '1000000']);
    book.update({ type: 'orderUpdate', E: 2, strategy: 's', clientId: 'c1', orderId: '7', symbol: 'BTC_IDR', side: 'BUY', orderType: 'STOP_LOSS', state: 'NEW', price: undefined, quantity: new Decimal('0.001'), cumQty: ZERO, cumQuoteQty: ZERO });
    expect(book.balance('IDR').locked.toFixed()).toBe('1000000');
    book.update({ type: 'orderUpdate', E: 3, strategy: 's', clientId: 'c1', orderId: '7', symbol: 'BTC_IDR', side: 'BUY', orderType: 'STOP_LOSS', state: 'CANCELED', price: undefined, quantity: new Decimal('0.001'), cumQty: ZERO, cumQuoteQty: ZERO });
    expect(book.balance('IDR').locked.toFixed()).toBe('0');
  });

  it('an order adopted from an earlier run (first seen as an update) holds by the stopPrice the update carries', () => {
    const book = new StrategyBook({ IDR: new Decimal('1500000') });
    book.update({ type: 'orderUpdate', E: 2, strategy: 's', clientId: 'c0', orderId: '6', symbol: 'BTC_IDR', side: 'BUY', orderType: 'TAKE_PROFIT', state: 'NEW', price: undefined, stopPrice: new Decimal('900000000'), quantity: new Decimal('0.001'), cumQty: ZERO, cumQuoteQty: ZERO });
    expect(book.balance('IDR').locked.toFixed()).toBe('900000');
  });

  it('a STOP_LOSS_LIMIT buy holds its limit price x quantity', () => {
    const book = new StrategyBook({ IDR: new Decimal('1500000') });
    book.placed({ ...stopBuy, orderType: 'STOP_LOSS_LIMIT', price: new Decimal('1010000000'), timeInForce: 'GTC' }, 1);
    expect(book.balance('IDR').locked.toFixed()).toBe('1010000');
  });
});

describe('StrategyBook open-order lists', () => {
  it('hands out the same list until an order comes, changes or ends, then a new one', () => {
    const book = new StrategyBook({ USDT: new Decimal('1000') });
    const place = (clientId: string, symbol: string) => book.placed({ kind: 'place', strategy: 's', intentId: clientId, clientId, symbol, side: 'BUY', orderType: 'LIMIT', price: new Decimal('10'), quantity: new Decimal('1'), timeInForce: 'GTC' }, 1);
    const ids = (l: readonly { clientId: string }[]) => l.map((o) => o.clientId);
    place('a', 'BTC_USDT');
    place('b', 'ETH_USDT');
    const first = book.openOrders('BTC_USDT');
    expect(ids(first)).toEqual(['a']);
    expect(book.openOrders('BTC_USDT')).toBe(first);
    // Shared between callers, so no caller may change it in place.
    expect(() => (first as unknown as unknown[]).splice(0, 1)).toThrow(TypeError);
    expect(ids(book.openOrders())).toEqual(['a', 'b']);
    expect(ids(book.openOrders('BTC_USDT'))).toEqual(['a']);
    const acked = book.openOrders('BTC_USDT');
    book.update({ type: 'orderUpdate', E: 2, strategy: 's', clientId: 'a', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', state: 'NEW', price: new Decimal('10'), quantity: new Decimal('1'), cumQty: ZERO, cumQuoteQty: ZERO });
    const after = book.openOrders('BTC_USDT');
    expect(after).not.toBe(acked);
    expect(after[0]?.state).toBe('NEW');
    book.update({ type: 'orderUpdate', E: 3, strategy: 's', clientId: 'a', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', state: 'CANCELED', price: new Decimal('10'), quantity: new Decimal('1'), cumQty: ZERO, cumQuoteQty: ZERO });
    expect(ids(book.openOrders('BTC_USDT'))).toEqual([]);
    expect(ids(after)).toEqual(['a']);
  });
});
