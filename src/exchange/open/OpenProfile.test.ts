import { describe, expect, it } from 'vitest';
import { RateLimitState } from '../transport/RateLimitState.js';
import type { CallSpec } from '../transport/RestAdapter.js';
import { OpenProfile } from './OpenProfile.js';

// Vectors computed independently of this code with:
//   printf '%s' "<totalParams>" | openssl dgst -sha256 -hmac "$SECRET"
const SECRET = 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j';
const clock = { now: () => 1_700_000_000_000 };

function profile(): OpenProfile {
  return new OpenProfile({ apiKey: 'key', apiSecret: SECRET, recvWindow: 5000, clock, rateLimits: new RateLimitState(clock), timeOffset: () => 0 });
}

function call(query: CallSpec['query'], body: CallSpec['body']): CallSpec {
  return { endpoint: 'POST /x', method: 'POST', baseUrl: 'http://127.0.0.1', path: '/x', query, body, auth: 'signed', idempotent: false, envelope: 'open' };
}

describe('OpenProfile signing', () => {
  it('mixed query + body: signs the query string immediately followed by the body', () => {
    // totalParams = "symbol=BTC_IDRside=0&quantity=1&recvWindow=5000&timestamp=1700000000000"
    const req = profile().prepare(call({ symbol: 'BTC_IDR' }, { side: 0, quantity: '1' }), '');
    expect(req.path).toBe('/x?symbol=BTC_IDR');
    expect(req.body).toBe('side=0&quantity=1&recvWindow=5000&timestamp=1700000000000&signature=29116a2437db401eaf4bc5000f8921ee781d790c1519367c1a725d8cf4f005f1');
    expect(req.headers['X-MBX-APIKEY']).toBe('key');
  });

  it('query only', () => {
    // totalParams = "symbol=BTC_IDR&recvWindow=5000&timestamp=1700000000000"
    const req = profile().prepare({ ...call({ symbol: 'BTC_IDR' }, undefined), method: 'GET' }, '/prefix');
    expect(req.path).toBe('/prefix/x?symbol=BTC_IDR&recvWindow=5000&timestamp=1700000000000&signature=73b64b3aece35d086255c125dc96041e0a2918d14b1691f76f3c95570ba722d7');
    expect(req.body).toBeUndefined();
  });

  it('body only', () => {
    // totalParams = "side=0&quantity=1&recvWindow=5000&timestamp=1700000000000"
    const req = profile().prepare(call(undefined, { side: 0, quantity: '1' }), '');
    expect(req.path).toBe('/x');
    expect(req.body).toBe('side=0&quantity=1&recvWindow=5000&timestamp=1700000000000&signature=537b363f7db2253585a1e69e6d04087d3fc25ee15e5a86e43315082c20f51cb0');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('per-call recvWindow above 60000 is refused', () => {
    expect(() => profile().prepare({ ...call(undefined, { a: 1 }), recvWindow: 60_001 }, '')).toThrow(/recvWindow/);
  });
});
