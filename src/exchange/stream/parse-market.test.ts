import { describe, expect, it } from 'vitest';
import { ParseError } from '../../core/errors.js';
import { parseMarketPayload } from './parse-market.js';

const ctx = { recvTime: 42 };

describe('parseMarketPayload: every market payload of the spec', () => {
  it('kline with exact decimals and the closed flag', () => {
    const [k] = parseMarketPayload(
      { e: 'kline', E: 2, s: 'BTCIDR', k: { t: 0, T: 59_999, s: 'BTCIDR', i: '1m', f: 1, L: 9, o: '1.10', c: '1.20', h: '1.30', l: '1.00', v: '5.5', n: 9, x: false, q: '6.05', V: '2', Q: '2.2', B: '0' } },
      ctx,
    );
    expect(k).toMatchObject({ type: 'kline', interval: '1m', openTime: 0, closeTime: 59_999, trades: 9, closed: false });
    if (k?.type === 'kline') expect(k.quoteVolume.toFixed()).toBe('6.05');
  });

  it('miniTicker and the all-tickers array', () => {
    const t = { e: '24hrMiniTicker', E: 3, s: 'ETHIDR', c: '2', o: '1', h: '3', l: '0.5', v: '10', q: '15' };
    expect(parseMarketPayload(t, ctx)[0]).toMatchObject({ type: 'miniTicker', symbol: 'ETHIDR', E: 3 });
    const arr = parseMarketPayload([t, { ...t, s: 'BTCIDR' }], { ...ctx, stream: '!miniTicker@arr' });
    expect(arr.map((e) => e.symbol)).toEqual(['ETHIDR', 'BTCIDR']);
  });

  it('partial depth takes symbol and levels from the stream name and local time as E', () => {
    const [p] = parseMarketPayload({ lastUpdateId: 7, bids: [['1.5', '2']], asks: [] }, { recvTime: 99, stream: 'btcidr@depth10@100ms', symbolOf: (w) => (w === 'BTCIDR' ? 'BTC_IDR' : w) });
    expect(p).toMatchObject({ type: 'partialDepth', symbol: 'BTC_IDR', levels: 10, lastUpdateId: 7, E: 99 });
    expect(() => parseMarketPayload({ lastUpdateId: 7, bids: [], asks: [] }, ctx)).toThrow(ParseError);
  });

  it('diff depth, trade, aggTrade and bookTicker', () => {
    expect(parseMarketPayload({ e: 'depthUpdate', E: 1, s: 'X', U: 5, u: 9, b: [['1', '0']], a: [] }, ctx)[0]).toMatchObject({ type: 'depthDiff', firstUpdateId: 5, finalUpdateId: 9 });
    expect(parseMarketPayload({ e: 'trade', E: 1, s: 'X', t: 3, p: '1', q: '2', T: 1, m: false, M: true }, ctx)[0]).toMatchObject({ type: 'trade', tradeId: '3', buyerOrderId: undefined });
    expect(parseMarketPayload({ e: 'aggTrade', E: 1, s: 'X', a: 4, p: '1', q: '2', f: 1, l: 2, T: 1, m: true, M: true }, ctx)[0]).toMatchObject({ type: 'aggTrade', aggId: '4', isBuyerMaker: true });
    const [bt] = parseMarketPayload({ u: 8, s: 'X', b: '1.0', B: '2', a: '1.1', A: '3' }, ctx);
    expect(bt).toMatchObject({ type: 'bookTicker', updateId: 8, E: 42 });
  });

  it('trade ids keep every digit past 2^53 (as the transport hands them: strings)', () => {
    const t = { e: 'trade', E: 1, s: 'X', t: '9223372036854775807', p: '1', q: '2', b: '9007199254740993', a: 5, T: 1, m: false, M: true };
    expect(parseMarketPayload(t, ctx)[0]).toMatchObject({ tradeId: '9223372036854775807', buyerOrderId: '9007199254740993', sellerOrderId: '5' });
    const k = { t: 0, T: 59_999, s: 'X', i: '1m', f: -1, L: -1, o: '1', c: '1', h: '1', l: '1', v: '0', n: 0, x: false, q: '0', V: '0', Q: '0', B: '0' };
    expect(parseMarketPayload({ e: 'kline', E: 2, s: 'X', k }, ctx)[0]).toMatchObject({ firstTradeId: undefined, lastTradeId: undefined });
    expect(parseMarketPayload({ e: 'kline', E: 2, s: 'X', k: { ...k, f: '9223372036854775806', L: '9223372036854775807' } }, ctx)[0]).toMatchObject({ firstTradeId: '9223372036854775806', lastTradeId: '9223372036854775807' });
    for (const [v, shown] of [[-1, 't=-1'], [2.5, 't=2.5'], ['12a', 't="12a"'], [2 ** 60, 'beyond 2^53']] as const) {
      expect(() => parseMarketPayload({ ...t, t: v }, ctx)).toThrow(ParseError);
      expect(() => parseMarketPayload({ ...t, t: v }, ctx)).toThrow(shown);
    }
    expect(() => parseMarketPayload({ e: 'aggTrade', E: 1, s: 'X', a: 4, p: '1', q: '2', f: '1.0', l: 2, T: 1, m: true }, ctx)).toThrow('f="1.0"');
  });

  it('malformed payloads throw ParseError naming the field', () => {
    expect(() => parseMarketPayload({ e: 'trade', E: 1, s: 'X', t: 3, p: 'abc', q: '2', T: 1, m: false }, ctx)).toThrow(/p="abc"/);
    expect(() => parseMarketPayload({ e: 'depthUpdate', E: 1, s: 'X', U: 9, u: 5, b: [], a: [] }, ctx)).toThrow(/below first update id/);
    expect(() => parseMarketPayload({ e: 'kline', E: 1, s: 'X', k: { i: '7m' } }, ctx)).toThrow(/k.i/);
    expect(() => parseMarketPayload({ e: 'nope' }, ctx)).toThrow(/unknown event type/);
    expect(() => parseMarketPayload('x', ctx)).toThrow(ParseError);
  });

  describe('amounts are held to the REST side\'s strict rule', () => {
    const trade = { e: 'trade', E: 1, s: 'X', t: 3, p: '1', q: '2', T: 1, m: false };
    const k = { t: 0, T: 59_999, s: 'X', i: '1m', f: 1, L: 2, o: '1', c: '1', h: '1', l: '1', v: '0', n: 0, x: false, q: '0', V: '0', Q: '0', B: '0' };
    const bad: readonly [string, unknown, RegExp][] = [
      ['trade at 1e-400', { ...trade, p: '1e-400' }, /p="1e-400"/],
      ['negative trade quantity', { ...trade, q: '-0.5' }, /q="-0.5"/],
      ['trade price 1e29 as a JSON number', { ...trade, p: 1e29 }, /p=1e\+?29/],
      ['aggTrade with an exponent', { e: 'aggTrade', E: 1, s: 'X', a: 4, p: '1E3', q: '2', f: 1, l: 2, T: 1, m: true }, /p="1E3"/],
      ['depth diff level with a negative quantity', { e: 'depthUpdate', E: 1, s: 'X', U: 5, u: 9, b: [['1', '2'], ['1.5', '-1']], a: [] }, /b\[1\]\[1\]="-1"/],
      ['depth diff level at 1e29', { e: 'depthUpdate', E: 1, s: 'X', U: 5, u: 9, b: [], a: [['100000000000000000000000000000', '1']] }, /a\[0\]\[0\]/],
      ['bookTicker bid with a sign', { u: 8, s: 'X', b: '+1.0', B: '2', a: '1.1', A: '3' }, /b="\+1.0"/],
      ['kline close with 19 decimals', { e: 'kline', E: 2, s: 'X', k: { ...k, c: '0.0000000000000000001' } }, /k\.c=/],
      ['miniTicker volume -0', { e: '24hrMiniTicker', E: 3, s: 'X', c: '2', o: '1', h: '3', l: '0.5', v: '-0', q: '15' }, /v="-0"/],
    ];
    it.each(bad)('%s is refused naming the field and value', (_name, payload, shown) => {
      expect(() => parseMarketPayload(payload, ctx)).toThrow(ParseError);
      expect(() => parseMarketPayload(payload, ctx)).toThrow(shown);
    });

    it('partial depth snapshot levels too', () => {
      const stream = 'btcidr@depth5';
      expect(() => parseMarketPayload({ lastUpdateId: 7, bids: [['1e-400', '1']], asks: [] }, { ...ctx, stream })).toThrow(/bids\[0\]\[0\]="1e-400"/);
      expect(parseMarketPayload({ lastUpdateId: 7, bids: [['61837.63000000', '0.00100000']], asks: [] }, { ...ctx, stream })[0]).toMatchObject({ type: 'partialDepth' });
    });
  });
});
