import { describe, expect, it } from 'vitest';
import { attributeDropped, isDiffDepthStream } from './dropped-depth.js';

const streams = ['btcidr@depth@100ms', 'btcidr@trade', 'ethidr@depth', 'ethidr@depth5'];
const toName = (w: string): string => ({ BTCIDR: 'BTC_IDR', ETHIDR: 'ETH_IDR' })[w] ?? w;
const at = (text: string, doc: unknown, stream?: string): { depthSymbols: readonly string[]; finalUpdateId: number | undefined; stream: string | undefined } => {
  const d = attributeDropped(text, doc, stream, streams, toName, 'bad');
  return { depthSymbols: d.depthSymbols, finalUpdateId: d.finalUpdateId, stream: d.stream };
};

describe('attributeDropped: which books a dropped market payload may have changed', () => {
  it('tells diff depth from partial depth and other streams by name', () => {
    expect(['x@depth', 'x@depth@100ms', 'x@depth5', 'x@depth20@100ms', 'x@trade'].map(isDiffDepthStream)).toEqual([true, true, false, false, false]);
  });

  it('a named stream gives its symbol (diff depth only) and the readable u', () => {
    expect(at('', { e: 'depthUpdate', u: 42, b: 'x' }, 'btcidr@depth@100ms')).toEqual({ depthSymbols: ['BTC_IDR'], finalUpdateId: 42, stream: 'btcidr@depth@100ms' });
    expect(at('', { e: 'depthUpdate', u: '43' }, 'btcidr@depth@100ms').finalUpdateId).toBe(43);
    expect(at('', { e: 'depthUpdate', u: 1.5 }, 'btcidr@depth@100ms').finalUpdateId).toBeUndefined();
    expect(at('', { e: 'trade' }, 'btcidr@trade').depthSymbols).toEqual([]);
    expect(at('', { lastUpdateId: 'x' }, 'ethidr@depth5').depthSymbols).toEqual([]);
  });

  it('text that is not JSON: the envelope prefix names its stream when it is ours; otherwise every diff-depth book', () => {
    expect(at('{"stream":"ethidr@depth","data":{"e":', undefined)).toEqual({ depthSymbols: ['ETH_IDR'], finalUpdateId: undefined, stream: 'ethidr@depth' });
    expect(at('{"stream":"btcidr@trade","data":', undefined).depthSymbols).toEqual([]);
    expect(at('{"stream":"xrpidr@depth","data":', undefined).depthSymbols).toEqual(['BTC_IDR', 'ETH_IDR']);
    expect(at('garbage', undefined).depthSymbols).toEqual(['BTC_IDR', 'ETH_IDR']);
  });

  it('a raw payload without a stream name: its event type and symbol, or every diff-depth book when unreadable', () => {
    expect(at('', { e: 'depthUpdate', s: 'ETHIDR', u: 7 })).toEqual({ depthSymbols: ['ETH_IDR'], finalUpdateId: 7, stream: undefined });
    expect(at('', { e: 'aggTrade', s: 'ETHIDR' }).depthSymbols).toEqual([]);
    // The u of an unattributed payload could be any book's: none is kept.
    expect(at('', { e: 7, s: 'ETHIDR', u: 9 })).toEqual({ depthSymbols: ['BTC_IDR', 'ETH_IDR'], finalUpdateId: undefined, stream: undefined });
    expect(at('', [1, 2]).depthSymbols).toEqual(['BTC_IDR', 'ETH_IDR']);
  });
});
