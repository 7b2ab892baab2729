/**
 * Independent signature checks for the test servers: recomputed from the raw request with
 * node:crypto directly, not with src/core/signing.ts, so a bug there cannot hide itself.
 */
import { createHmac } from 'node:crypto';
import type { RecordedRequest } from './LoopbackServer.js';

/** Removes the `signature=` parameter from a raw parameter string, returning both parts. */
function stripSignature(raw: string): { rest: string; signature: string | undefined } {
  if (raw === '') return { rest: '', signature: undefined };
  const parts = raw.split('&');
  const i = parts.findIndex((p) => p.startsWith('signature='));
  if (i < 0) return { rest: raw, signature: undefined };
  const signature = decodeURIComponent((parts[i] as string).slice('signature='.length));
  parts.splice(i, 1);
  return { rest: parts.join('&'), signature };
}

/**
 * Checks an open API SIGNED request: X-MBX-APIKEY equals `apiKey`, and `signature` (in the
 * query or the body) is the HMAC-SHA256 hex of query string + body as sent, minus the signature.
 * Returns a reason string when wrong, undefined when right.
 */
export function openSignatureProblem(req: RecordedRequest, apiKey: string, secret: string): string | undefined {
  if (req.header('x-mbx-apikey') !== apiKey) return `X-MBX-APIKEY is ${String(req.header('x-mbx-apikey'))}`;
  const q = stripSignature(req.rawQuery);
  const b = stripSignature(req.rawBody);
  const signature = b.signature ?? q.signature;
  if (signature === undefined) return 'no signature parameter';
  if (q.signature !== undefined && b.signature !== undefined) return 'signature sent twice';
  const expected = createHmac('sha256', secret).update(q.rest + b.rest).digest('hex');
  if (expected !== signature.toLowerCase()) return `signature ${signature} != ${expected} over ${JSON.stringify(q.rest + b.rest)}`;
  if (!/^\d+$/.test(req.params.timestamp ?? '')) return 'timestamp missing';
  return undefined;
}

/**
 * Checks a legacy authenticated request: X-TC-APIKEY, and X-TC-SIGNATURE equal to the
 * lowercase hex HMAC-SHA384 of the X-TC-PAYLOAD string. Returns the decoded payload object.
 */
export function legacyPayload(req: RecordedRequest, apiKey: string, secret: string): Record<string, unknown> {
  if (req.header('x-tc-apikey') !== apiKey) throw new Error(`X-TC-APIKEY is ${String(req.header('x-tc-apikey'))}`);
  const payload = req.header('x-tc-payload') ?? '';
  const expected = createHmac('sha384', secret).update(payload).digest('hex');
  if (req.header('x-tc-signature') !== expected) throw new Error(`X-TC-SIGNATURE ${String(req.header('x-tc-signature'))} != ${expected}`);
  const obj = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as unknown;
  if (typeof obj !== 'object' || obj === null) throw new Error('payload is not an object');
  return obj as Record<string, unknown>;
}
