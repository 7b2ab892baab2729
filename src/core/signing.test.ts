import { describe, expect, it } from 'vitest';
import { legacyPayload, signLegacy, signOpen, verifyLegacy, verifyOpen } from './signing.js';

// Vectors computed independently of this code with openssl:
//   printf 'symbol=BTC_IDR&side=0&type=1timeInForce=1&quantity=0.001&price=1000000000&timestamp=1700000000000' \
//     | openssl dgst -sha256 -hmac 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j'
//   P=$(printf '{"nonce":1700000000000,"submission":"1","side":"buy","quantity":0.001,"type":"limit","price":1000000000,"currency":"btc"}' | base64 -w0)
//   printf '%s' "$P" | openssl dgst -sha384 -hmac 'legacysecret'
const OPEN_SECRET = 'NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j';
const MIXED_QUERY = 'symbol=BTC_IDR&side=0&type=1';
const MIXED_BODY = 'timeInForce=1&quantity=0.001&price=1000000000&timestamp=1700000000000';
const OPEN_SIG = 'ce6def78ce457ead4a1e2fe44d2e9b192475d487149e37cf18a7f603123a9774';
const LEGACY_PAYLOAD =
  'eyJub25jZSI6MTcwMDAwMDAwMDAwMCwic3VibWlzc2lvbiI6IjEiLCJzaWRlIjoiYnV5IiwicXVhbnRpdHkiOjAuMDAxLCJ0eXBlIjoibGltaXQiLCJwcmljZSI6MTAwMDAwMDAwMCwiY3VycmVuY3kiOiJidGMifQ==';
const LEGACY_SIG = '74eed186d33bb719c0f62f3a536905e91fb1e3f15243a5403db4a7c40345da1fcc579a860ccdd916cb8262ce6e5ae0d8';

describe('open API signing (HMAC-SHA256 over totalParams)', () => {
  it('signs a mixed request as query then body with nothing between', () => {
    expect(signOpen(OPEN_SECRET, MIXED_QUERY, MIXED_BODY)).toBe(OPEN_SIG);
  });
  it('gives the same signature whether the string is all query or all body', () => {
    const all = MIXED_QUERY + MIXED_BODY;
    expect(signOpen(OPEN_SECRET, all, '')).toBe(OPEN_SIG);
    expect(signOpen(OPEN_SECRET, '', all)).toBe(OPEN_SIG);
  });
  it('verifies case-insensitively and rejects a changed byte', () => {
    expect(verifyOpen(OPEN_SECRET, MIXED_QUERY + MIXED_BODY, OPEN_SIG.toUpperCase())).toBe(true);
    expect(verifyOpen(OPEN_SECRET, MIXED_QUERY + '&' + MIXED_BODY, OPEN_SIG)).toBe(false);
    expect(verifyOpen(OPEN_SECRET, MIXED_QUERY + MIXED_BODY, OPEN_SIG.slice(0, -1))).toBe(false);
  });
});

describe('legacy signing (HMAC-SHA384 over base64 payload)', () => {
  const params = { nonce: 1700000000000, submission: '1', side: 'buy', quantity: 0.001, type: 'limit', price: 1000000000, currency: 'btc' };
  it('encodes the payload as base64 of the JSON', () => {
    expect(legacyPayload(params)).toBe(LEGACY_PAYLOAD);
  });
  it('signs as lowercase hex', () => {
    expect(signLegacy('legacysecret', LEGACY_PAYLOAD)).toBe(LEGACY_SIG);
    expect(verifyLegacy('legacysecret', LEGACY_PAYLOAD, LEGACY_SIG)).toBe(true);
    expect(verifyLegacy('other', LEGACY_PAYLOAD, LEGACY_SIG)).toBe(false);
  });
});
