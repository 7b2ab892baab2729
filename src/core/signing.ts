/**
 * Signing math shared by the clients and the sandbox so both use one definition.
 * Pure functions over node:crypto; no I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Open API: lowercase hex HMAC-SHA256 of totalParams (query string immediately followed by body). */
export function signOpen(secret: string, queryString: string, body: string): string {
  return createHmac('sha256', secret).update(queryString + body).digest('hex');
}

/** Verifies an open API signature; the spec says the hex comparison is case-insensitive. */
export function verifyOpen(secret: string, totalParams: string, signature: string): boolean {
  const expected = createHmac('sha256', secret).update(totalParams).digest('hex');
  return constantTimeEqual(expected, signature.toLowerCase());
}

/** Legacy /v1: payload = base64(JSON(params)). Key order is kept as given. */
export function legacyPayload(params: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(params), 'utf8').toString('base64');
}

/** Legacy /v1: lowercase hex HMAC-SHA384 of the base64 payload string. */
export function signLegacy(secret: string, payloadBase64: string): string {
  return createHmac('sha384', secret).update(payloadBase64).digest('hex');
}

/** Verifies a legacy signature (the spec says lowercase hex; we accept either case as the open API does). */
export function verifyLegacy(secret: string, payloadBase64: string, signature: string): boolean {
  return constantTimeEqual(signLegacy(secret, payloadBase64), signature.toLowerCase());
}

function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
