/**
 * Signed open-API query strings and legacy /v1 headers for tests that talk raw HTTP to the sandbox. Computed with
 * node:crypto directly, not with src/core/signing.ts, so a bug there cannot hide itself in a
 * test that checks the sandbox's verification.
 */
import { createHmac } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 of `text` under `secret`. */
export function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** `params` plus timestamp (`ts`, now by default) and the signature over both, for the query string. */
export function signedQuery(params: string, secret: string, ts = Date.now()): string {
  const q = `${params}${params ? '&' : ''}timestamp=${ts}`;
  return `${q}&signature=${hmacHex(secret, q)}`;
}

/** The X-TC-* headers of a legacy /v1 request: `json` in base64 as the payload, signed with the lowercase hex HMAC-SHA384. */
export function legacyHeaders(json: string, apiKey: string, secret: string): Record<string, string> {
  const payload = Buffer.from(json).toString('base64');
  return { 'X-TC-APIKEY': apiKey, 'X-TC-PAYLOAD': payload, 'X-TC-SIGNATURE': createHmac('sha384', secret).update(payload).digest('hex') };
}
