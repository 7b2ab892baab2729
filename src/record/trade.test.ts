import { describe, expect, it } from 'vitest';
import { parseMarketPayload } from '../exchange/stream/parse-market.js';
import { DecimalTextCache } from '../core/decimalText.js';
import { lazyTradeOf, rawTrade } from './trade.js';

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
