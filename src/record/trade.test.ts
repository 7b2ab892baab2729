import { describe, expect, it } from 'vitest';
import { parseMarketPayload } from '../exchange/stream/parse-market.js';
import { DecimalTextCache } from '../core/decimalText.js';
import { parseRecordLine } from './format.js';
import { Decimal } from '../core/decimal.js';
import { mulberry32 } from '../core/random.js';
import { scaledText } from './binary/format.js';
import type { TradeEvent } from '../core/marketEvents.js';
import { idText, lazyTradeOf, rawTrade, scaledTradeOf, type ScaledTrade, wireTrade } from './trade.js';

const wire = { e: 'trade', E: 1723161255343, s: 'BTCUSDT', t: 3735683259, p: '61837.63000000', q: '0.02000000', T: 1723161255342, m: true, M: true };

describe('lazyTradeOf', () => {
  it('reads, compares, spreads and serialises like the eagerly parsed event; keeps the wire strings', () => {
    const sym = (w: string): string => `${w}!`;
    for (const d of [wire, { ...wire, b: 17, a: 18 }]) {
      const eager = parseMarketPayload(d, { stream: 'btcusdt@trade', recvTime: 77, symbolOf: sym })[0];
      const lazy = lazyTradeOf(d, sym, new DecimalTextCache());
      expect(lazy).toEqual(eager);
      expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
      expect(Object.keys(lazy ?? {})).toEqual(Object.keys(eager ?? {}));
      expect({ ...lazy }).toEqual(eager);
      expect(lazy?.price.toFixed()).toBe('61837.63');
      expect(lazy?.price).toBe(lazy?.price);
      expect(lazy && rawTrade(lazy)).toEqual({ price: '61837.63000000', qty: '0.02000000', isBuyerMaker: true });
      expect(rawTrade({ ...(lazy as NonNullable<typeof lazy>) })).toBeUndefined();
    }
  });

  it('leaves everything else to the eager parser', () => {
    const c = new DecimalTextCache();
    expect(lazyTradeOf({ ...wire, p: 61837.63 }, undefined, c)).toBeUndefined();
    expect(lazyTradeOf({ ...wire, q: '1e3' }, undefined, c)).toBeUndefined();
    expect(lazyTradeOf({ ...wire, E: '1723161255343' }, undefined, c)).toBeUndefined();
    expect(lazyTradeOf({ ...wire, t: 1.5 }, undefined, c)).toBeUndefined();
    expect(lazyTradeOf({ ...wire, b: '17' }, undefined, c)).toBeUndefined();
    expect(lazyTradeOf({ ...wire, m: 'true' }, undefined, c)).toBeUndefined();
    expect(lazyTradeOf({ ...wire, e: 'aggTrade' }, undefined, c)).toBeUndefined();
    const { T: _t, ...noT } = wire;
    expect(lazyTradeOf(noT, undefined, c)).toBeUndefined();
  });
});

describe('recorded trade ids', () => {
  // The recorder writes frames verbatim, so a file holds ids past 2^53 as number literals.
  const line = (data: string): string => `1723161255343000000 {"stream":"btcusdt@trade","data":${data}}`;

  it('a line whose trade ids passed 2^53 keeps every digit (JSON.parse alone would round them)', () => {
    const rec = parseRecordLine(line('{"e":"trade","E":1,"s":"BTCUSDT","t":9223372036854775807,"p":"1.5","q":"2","b":9007199254740993,"a":17,"T":1,"m":true,"M":true}'));
    const ev = parseMarketPayload(rec?.data, { stream: rec?.stream, recvTime: 1 })[0];
    expect(ev).toMatchObject({ type: 'trade', tradeId: '9223372036854775807', buyerOrderId: '9007199254740993', sellerOrderId: '17' });
    const agg = parseRecordLine(line('{"e":"aggTrade","E":1,"s":"BTCUSDT","a":9223372036854775806,"p":"1","q":"1","f":9223372036854775800,"l":9223372036854775807,"T":1,"m":true,"M":true}'));
    expect(parseMarketPayload(agg?.data, { stream: agg?.stream, recvTime: 1 })[0]).toMatchObject({ aggId: '9223372036854775806', firstTradeId: '9223372036854775800', lastTradeId: '9223372036854775807' });
  });

  it('lines written before (safe ids) read as before, through the lazy path', () => {
    const rec = parseRecordLine(line(JSON.stringify(wire)));
    const lazy = lazyTradeOf(rec?.data as Record<string, unknown>, undefined, new DecimalTextCache());
    expect(lazy?.tradeId).toBe('3735683259');
    expect(lazy && rawTrade(lazy)).toBeDefined();
  });
});

describe('wireTrade scaled values', () => {
  it('equal the wire text as decimal.js reads it, at the smallest exact scale (differential, random)', () => {
    const cache = new DecimalTextCache();
    const rand = mulberry32(7);
    for (let i = 0; i < 20_000; i++) {
      const scale = Math.floor(rand() * 10);
      // Small (int32) and large values, many with trailing zeros, and zero.
      const digits = 1 + Math.floor(rand() * 15);
      let v = Math.floor(rand() * 10 ** digits);
      if (rand() < 0.5) v = Math.floor(v / 10 ** Math.floor(rand() * 6)) * 10 ** Math.floor(rand() * 6);
      if (!Number.isSafeInteger(v)) continue;
      const e = wireTrade(1, 'BTC_USDT', i, 1, false, undefined, undefined, v, scale, v, scale, cache);
      const st = scaledTradeOf(e) as ScaledTrade;
      const text = scaledText(v, scale);
      expect(new Decimal(st.scaledPrice).div(new Decimal(10).pow(st.priceScale)).eq(new Decimal(text))).toBe(true);
      expect(new Decimal(st.scaledQty).div(new Decimal(10).pow(st.qtyScale)).eq(new Decimal(text))).toBe(true);
      // Integers at scales within the wire's, and the smallest: no trailing zero left to drop.
      for (const [n, sc] of [[st.scaledPrice, st.priceScale], [st.scaledQty, st.qtyScale]] as const) {
        expect(Number.isSafeInteger(n) && sc >= 0 && sc <= scale).toBe(true);
        expect(BigInt(n) * 10n ** BigInt(scale - sc)).toBe(BigInt(v));
      }
      if (st.qtyScale > 0) expect(st.scaledQty % 10 !== 0 || st.scaledQty === 0).toBe(true);
      if (v === 0) expect(st.qtyScale).toBe(scale);
      expect(st.qtyScale).toBe(st.priceScale);
      expect(e.qty.toString()).toBe(new Decimal(text).toString());
    }
  });
});

describe('idText', () => {
  it('spells ids as String() does (both sides of 2^30 and of the halves, random safe integers)', () => {
    const rand = mulberry32(3);
    const ids = [0, 9, 99_999, 100_000, 0x3fffffff, 0x40000000, 3_735_683_259, 10_000_000_000, 10_000_000_001, 4_200_000_099_999, Number.MAX_SAFE_INTEGER];
    for (let i = 0; i < 50_000; i++) ids.push(Math.floor(rand() * 10 ** (1 + Math.floor(rand() * 16))));
    for (const id of ids) if (Number.isSafeInteger(id)) expect(idText(id)).toBe(String(id));
  });

  it('spells runs of ids, as a recording has them, and ids that alternate between runs', () => {
    for (let id = 3_735_683_150; id < 3_735_683_450; id++) expect(idText(id)).toBe(String(id));
    for (let i = 0; i < 300; i++) {
      const id = (i % 2 === 0 ? 0x3fffff00 : 999_999_999_900) + i;
      expect(idText(id)).toBe(String(id));
    }
  });
});

describe('wireTrade', () => {
  it('makes the lazy trade of the same wire strings: JSON, keys, spread, deep equality, raw strings', () => {
    const texts = new DecimalTextCache();
    const rand = mulberry32(5);
    // Compared once all are made: a trade must keep nothing of the shared fields the next one is made from.
    const made: [TradeEvent, TradeEvent | undefined][] = [];
    for (let i = 0; i < 3_000; i++) {
      const id = Math.floor(rand() * 10 ** (1 + Math.floor(rand() * 12)));
      const p = i % 7 === 0 ? 0 : Math.floor(rand() * 10 ** (1 + Math.floor(rand() * 15)));
      const q = Math.floor(rand() * 10 ** (1 + Math.floor(rand() * 10)));
      const scale = i % 5 === 0 ? Math.floor(rand() * 10) : 8;
      const wire = { e: 'trade', E: 1000 + i, s: 'BTCUSDT', t: id, p: scaledText(p, scale), q: scaledText(q, scale), T: 999 + i, m: (i & 1) === 0, M: true };
      const lazy = lazyTradeOf(wire, () => 'BTC_USDT', texts);
      made.push([wireTrade(1000 + i, 'BTC_USDT', id, 999 + i, (i & 1) === 0, undefined, undefined, p, scale, q, scale, texts), lazy]);
    }
    for (const [e, lazy] of made) {
      expect(e).toEqual(lazy);
      expect({ ...e }).toEqual({ ...lazy });
      expect(JSON.stringify(e)).toBe(JSON.stringify(lazy));
      expect(Object.keys(e)).toEqual(Object.keys(lazy ?? {}));
      expect(rawTrade(e)).toEqual(lazy && rawTrade(lazy));
    }
  });
});
