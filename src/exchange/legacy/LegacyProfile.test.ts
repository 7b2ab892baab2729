import { describe, expect, it } from 'vitest';
import { EndpointWindowLimiter } from '../transport/EndpointWindowLimiter.js';
import { JsonNumberLiteral } from '../transport/wire.js';
import { LegacyProfile } from './LegacyProfile.js';
import { TimeNonceStore } from './NonceStore.js';

// Vector computed independently with:
//   P=$(printf '%s' '<json below>' | base64 -w0); printf '%s' "$P" | openssl dgst -sha384 -hmac legacy-secret
const JSON_TEXT = '{"submission":"1","side":"buy","quantity":0.001,"type":"limit","price":1000000000,"currency":"btc","nonce":1700000000000000}';
const PAYLOAD = 'eyJzdWJtaXNzaW9uIjoiMSIsInNpZGUiOiJidXkiLCJxdWFudGl0eSI6MC4wMDEsInR5cGUiOiJsaW1pdCIsInByaWNlIjoxMDAwMDAwMDAwLCJjdXJyZW5jeSI6ImJ0YyIsIm5vbmNlIjoxNzAwMDAwMDAwMDAwMDAwfQ==';
const SIGNATURE = '6f985f52f35727c3e9d65bd62c000c29c71397589ac836e8e3361a5a87750bda2561a09dcd3e00a7a5cb7d96e3a811d2';

describe('LegacyProfile signing', () => {
  it('payload = base64(JSON with nonce), signature = hex HMAC-SHA384 of the payload, in X-TC-* headers', () => {
    const clock = { now: () => 1_700_000_000_000 };
    const nonces = new TimeNonceStore(clock);
    const p = new LegacyProfile({ apiKey: 'k', apiSecret: 'legacy-secret', nonces: () => nonces, limiter: new EndpointWindowLimiter(60, 60_000, clock), clock });
    const req = p.prepare(
      {
        endpoint: 'POST /v1/order',
        method: 'POST',
        baseUrl: 'http://127.0.0.1',
        path: '/v1/order',
        body: { submission: '1', side: 'buy', quantity: new JsonNumberLiteral('0.001'), type: 'limit', price: new JsonNumberLiteral('1000000000'), currency: 'btc' },
        auth: 'signed',
        idempotent: false,
        envelope: 'legacy',
      },
      '',
    );
    expect(req.headers['X-TC-APIKEY']).toBe('k');
    expect(req.headers['X-TC-PAYLOAD']).toBe(PAYLOAD);
    expect(req.headers['X-TC-SIGNATURE']).toBe(SIGNATURE);
    expect(req.body).toBe(JSON_TEXT);
  });
});
