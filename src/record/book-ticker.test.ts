import { describe, expect, it } from 'vitest';
import { parseMarketPayload } from '../exchange/stream/parse-market.js';
import { lazyBookTicker } from './book-ticker.js';
import { DecimalTextCache } from '../core/decimalText.js';

const wire = { u: 50093239212, s: 'BTCUSDT', b: '61837.63000000', B: '3.78826000', a: '61837.64000000', A: '1.54698000' };

describe('lazyBookTicker', () => {
  it('reads, compares, spreads and serialises like the eagerly parsed event', () => {
    const sym = (w: string): string => `${w}!`;
    for (const d of [wire, { ...wire, E: 1723161255208 }]) {
      const eager = parseMarketPayload(d, { stream: 'btcusdt@bookTicker', recvTime: 77, symbolOf: sym })[0];
      const lazy = lazyBookTicker(d, 77, sym, new DecimalTextCache());
      expect(lazy).toEqual(eager);
      expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
      expect({ ...lazy }).toEqual(eager);
      expect(lazy?.bidPrice.toFixed()).toBe('61837.63');
    }
  });

  it('leaves everything else to the eager parser', () => {
    const c = new DecimalTextCache();
    expect(lazyBookTicker({ ...wire, b: 1.5 }, 0, undefined, c)).toBeUndefined();
    expect(lazyBookTicker({ ...wire, b: '1e3' }, 0, undefined, c)).toBeUndefined();
    expect(lazyBookTicker({ ...wire, u: '12' }, 0, undefined, c)).toBeUndefined();
    expect(lazyBookTicker({ ...wire, E: 'x' }, 0, undefined, c)).toBeUndefined();
    expect(lazyBookTicker({ ...wire, e: 'bookTicker' }, 0, undefined, c)).toBeUndefined();
    expect(lazyBookTicker({ ...wire, lastUpdateId: 1 }, 0, undefined, c)).toBeUndefined();
    const { A: _a, ...noA } = wire;
    expect(lazyBookTicker(noA, 0, undefined, c)).toBeUndefined();
  });
});
