/** Route helpers for legacy /v1 client tests. */
import type { RecordedRequest, Reply, Route } from './LoopbackServer.js';
import { legacyPayload } from './signatures.js';

/** Test credentials. */
export const LEGACY_KEY = 'legacy-test-key';
/** Test secret (never a real one). */
export const LEGACY_SECRET = 'legacy-test-secret';

/** A successful legacy envelope. */
export function success(messageCode: string, data: unknown): Record<string, unknown> {
  return { success: true, message_code: messageCode, data };
}

/**
 * A route that checks the X-TC-* headers independently and hands the decoded payload to
 * `inner`; a wrong signature answers 401 as the spec says for a wrong key.
 */
export function authed(inner: (payload: Record<string, unknown>, req: RecordedRequest) => Reply | Promise<Reply>): Route {
  return (req) => {
    let payload: Record<string, unknown>;
    try {
      payload = legacyPayload(req, LEGACY_KEY, LEGACY_SECRET);
    } catch (e) {
      return { status: 401, json: { success: false, message_code: 'unauthorized', message: e instanceof Error ? e.message : String(e) } };
    }
    return inner(payload, req);
  };
}

/** The decoded payload of a recorded authenticated request (after the route accepted it). */
export function payloadOf(req: RecordedRequest): Record<string, unknown> {
  return legacyPayload(req, LEGACY_KEY, LEGACY_SECRET);
}
