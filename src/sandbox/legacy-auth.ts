/**
 * Legacy request signing: X-TC-APIKEY names the account, X-TC-SIGNATURE is the lowercase hex
 * HMAC-SHA384 of X-TC-PAYLOAD (base64 of a JSON object), and the payload's nonce must grow
 * strictly per key.
 */
import { verifyLegacy } from '../core/index.js';
import type { SandboxAccount } from './config.js';
import type { RequestContext } from './http-host.js';
import { fail, type Params } from './legacy-kit.js';

/** The account and parameters of a signed request. */
export interface LegacyAuth {
  readonly account: SandboxAccount;
  readonly params: Params;
}

/** An authenticator over these accounts, keeping the last nonce of each key. */
export function legacyAuthenticator(accounts: Iterable<SandboxAccount>): (ctx: RequestContext) => LegacyAuth {
  const nonces = new Map<string, number>();
  const byKey = new Map<string, SandboxAccount>();
  for (const a of accounts) byKey.set(a.legacyApiKey, a);
  return (ctx) => {
    const key = ctx.headers['x-tc-apikey'];
    const payload = ctx.headers['x-tc-payload'];
    const signature = ctx.headers['x-tc-signature'];
    if (typeof key !== 'string' || !byKey.has(key)) fail(401, 'invalid_api_key', 'API key wrong');
    const account = byKey.get(key) as SandboxAccount;
    // The spec defines the value as the lowercase hex digest (the open API's "not case sensitive" is not said here).
    if (typeof payload !== 'string' || typeof signature !== 'string' || !/^[0-9a-f]{96}$/.test(signature) || !verifyLegacy(account.legacySecret, payload, signature)) {
      fail(401, 'invalid_signature', 'signature does not match the payload');
    }
    let params: unknown;
    try {
      params = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
    } catch {
      fail(400, 'invalid_parameter', 'X-TC-PAYLOAD is not base64 of a JSON object');
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) fail(400, 'invalid_parameter', 'X-TC-PAYLOAD is not base64 of a JSON object');
    const p = params as Params;
    const nonce = p.nonce;
    if (typeof nonce !== 'number' || !Number.isSafeInteger(nonce)) fail(400, 'invalid_nonce', 'nonce must be an integer');
    const last = nonces.get(key);
    if (last !== undefined && nonce <= last) fail(400, 'invalid_nonce', `nonce must be greater than ${last}`);
    nonces.set(key, nonce);
    return { account, params: p };
  };
}
