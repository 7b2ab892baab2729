/**
 * Open API authentication exactly as the spec's Authentication section says: the key in
 * X-MBX-APIKEY, keys restricted to security types, HMAC-SHA256 over totalParams (query string
 * immediately followed by the body, the `signature` pair itself removed), case-insensitive hex,
 * and the timing window timestamp < serverTime + 1000 and serverTime - timestamp <= recvWindow
 * (recvWindow default 5000, max 60000).
 */
import { ExchangeError, verifyOpen } from '../core/index.js';
import type { SandboxAccount } from './config.js';
import type { RequestContext } from './http-host.js';
import { ApiCode } from './params.js';

/** Security type of an endpoint. */
export type Security = 'NONE' | 'API_KEY' | 'SIGNED';

/** Removes `signature=...` pairs from a raw parameter string, keeping every other byte as sent. */
export function stripSignature(raw: string): string {
  if (raw === '' || !raw.includes('signature=')) return raw;
  return raw
    .split('&')
    .filter((pair) => !pair.startsWith('signature='))
    .join('&');
}

/** Where the signature came from: the body wins when both carry one, like every other parameter. */
function signatureOf(ctx: RequestContext): string | undefined {
  return ctx.params.get('signature');
}

/** Authenticates a request for `security`; returns the account, or undefined for NONE. */
export function authenticateOpen(ctx: RequestContext, security: Security, keys: ReadonlyMap<string, SandboxAccount>, serverTime: number): SandboxAccount | undefined {
  if (security === 'NONE') return undefined;
  const fail = (status: number, code: number, msg: string): never => {
    throw new ExchangeError(status, code, msg, ctx.path);
  };
  const key = ctx.headers['x-mbx-apikey'];
  if (typeof key !== 'string' || key === '') return fail(401, ApiCode.BAD_API_KEY_FMT, 'API-key format invalid.');
  const account = keys.get(key);
  if (!account || !account.permissions.has(security)) return fail(401, ApiCode.REJECTED_API_KEY, 'Invalid API-key, IP, or permissions for action.');
  if (security === 'API_KEY') return account;

  const tsRaw = ctx.params.get('timestamp');
  if (tsRaw === undefined || tsRaw === '') return fail(400, ApiCode.MANDATORY_PARAM, "Mandatory parameter 'timestamp' was not sent, was empty/null, or malformed.");
  if (!/^\d{1,20}$/.test(tsRaw)) return fail(400, ApiCode.ILLEGAL_CHARS, "Illegal characters found in parameter 'timestamp'; legal range is '^[0-9]{1,20}$'.");
  const timestamp = Number(tsRaw);
  let recvWindow = 5000;
  const rwRaw = ctx.params.get('recvWindow');
  if (rwRaw !== undefined && rwRaw !== '') {
    if (!/^\d{1,20}$/.test(rwRaw)) return fail(400, ApiCode.ILLEGAL_CHARS, "Illegal characters found in parameter 'recvWindow'; legal range is '^[0-9]{1,20}$'.");
    recvWindow = Number(rwRaw);
    if (recvWindow > 60_000) return fail(400, ApiCode.BAD_RECV_WINDOW, 'recvWindow must be less than 60000');
  }
  if (!(timestamp < serverTime + 1000 && serverTime - timestamp <= recvWindow)) {
    return fail(400, ApiCode.INVALID_TIMESTAMP, 'Timestamp for this request is outside of the recvWindow.');
  }
  const signature = signatureOf(ctx);
  if (signature === undefined || signature === '') return fail(400, ApiCode.MANDATORY_PARAM, "Mandatory parameter 'signature' was not sent, was empty/null, or malformed.");
  const totalParams = stripSignature(ctx.rawQuery) + stripSignature(ctx.rawBody);
  if (!/^[0-9a-fA-F]{64}$/.test(signature) || !verifyOpen(account.secret, totalParams, signature)) {
    return fail(401, ApiCode.INVALID_SIGNATURE, 'Signature for this request is not valid.');
  }
  return account;
}
