import { describe, expect, it } from 'vitest';
import { parseUserPayload } from './parse-user.js';

const base = {
  e: 'executionReport', E: 10, s: 'BTCIDR', c: 'c1', S: 'SELL', o: 'LIMIT_MAKER', f: 'GTC', q: '1', p: '2', P: '0', F: '0', g: -1, C: 'old',
  x: 'EXPIRED', X: 'EXPIRED', r: 'NONE', i: '123', l: '0', z: '0', L: '0', n: '0', N: null, T: 10, t: -1, I: 1, w: true, m: false, M: false, O: 9, Z: '0', Y: '0', eR: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED',
};

describe('parseUserPayload', () => {
  it('executionReport: names, nullable commission asset, expiry reason', () => {
    const r = parseUserPayload(base);
    expect(r).toMatchObject({ type: 'executionReport', side: 'SELL', orderType: 'LIMIT_MAKER', status: 'EXPIRED', executionType: 'EXPIRED', commissionAsset: null, origClientId: 'old', tradeId: undefined, isWorking: true, expiryReason: 'EXECUTION_RULE_PRICE_RANGE_EXCEEDED', orderId: '123' });
  });
  it('accepts numeric enumeration codes as the REST side uses them', () => {
    expect(parseUserPayload({ ...base, S: 0, o: 1, f: 2, X: 1 })).toMatchObject({ side: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', status: 'PARTIALLY_FILLED' });
  });
  it('rejects unknown enumeration values and execution types', () => {
    expect(() => parseUserPayload({ ...base, S: 'UP' })).toThrow(/S="UP"/);
    expect(() => parseUserPayload({ ...base, x: 'MOVED' })).toThrow(/x="MOVED"/);
    expect(() => parseUserPayload({ ...base, eR: 'BECAUSE' })).toThrow(/eR/);
  });
  it('trade ids keep every digit (the transport quotes literals past 2^53); a malformed one names t and its value', () => {
    const fill = { ...base, x: 'TRADE', X: 'PARTIALLY_FILLED', t: '9007199254740993' };
    expect(parseUserPayload(fill)).toMatchObject({ tradeId: '9007199254740993' });
    expect(parseUserPayload({ ...fill, t: 77 })).toMatchObject({ tradeId: '77' });
    expect(parseUserPayload({ ...fill, t: undefined })).toMatchObject({ tradeId: undefined });
    expect(() => parseUserPayload({ ...fill, t: -7 })).toThrow(/t=-7/);
    expect(() => parseUserPayload({ ...fill, t: 1.5 })).toThrow(/t=1\.5/);
    expect(() => parseUserPayload({ ...fill, t: 'x9' })).toThrow(/t="x9"/);
  });
  it('eventStreamTerminated carries the subscription id of its envelope', () => {
    expect(parseUserPayload({ e: 'eventStreamTerminated', E: 5 }, 3)).toEqual({ type: 'streamTerminated', E: 5, subscriptionId: 3 });
  });
  it('amounts are held to the REST side\'s strict rule: a fill at 1e29 or with a negative commission is refused, naming the field', () => {
    const fill = { ...base, x: 'TRADE', X: 'PARTIALLY_FILLED', t: 5, l: '0.5', z: '0.5', L: '2', n: '0.001', Z: '1', Y: '1' };
    expect(parseUserPayload(fill)).toMatchObject({ type: 'executionReport' });
    expect(() => parseUserPayload({ ...fill, L: '1e29' })).toThrow(/L="1e29"/);
    expect(() => parseUserPayload({ ...fill, L: 1e29 })).toThrow(/L=1e\+?29/);
    expect(() => parseUserPayload({ ...fill, n: '-0.5' })).toThrow(/n="-0.5"/);
    expect(() => parseUserPayload({ ...fill, l: '1e-400' })).toThrow(/l="1e-400"/);
    expect(() => parseUserPayload({ e: 'outboundAccountPosition', E: 1, u: 1, B: [{ a: 'IDR', f: '-5', l: '0' }] })).toThrow(/B\[0\]\.f="-5"/);
  });
});
