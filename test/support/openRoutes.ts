/** Route helpers for open API client tests: signature-checked replies with readable failures. */
import type { RecordedRequest, Reply, Route } from './LoopbackServer.js';
import { openSignatureProblem } from './signatures.js';

/** Test credentials. */
export const OPEN_KEY = 'open-test-key';
/** Test secret (never a real one). */
export const OPEN_SECRET = 'open-test-secret';

/**
 * A route that first checks the SIGNED request independently (key header, HMAC over query +
 * body, timestamp present) and answers 400 with the reason when it is wrong; otherwise `inner`.
 */
export function signed(inner: (req: RecordedRequest) => Reply | Promise<Reply>): Route {
  return (req) => {
    const problem = openSignatureProblem(req, OPEN_KEY, OPEN_SECRET);
    if (problem) return { status: 400, json: { code: -1022, msg: `test server: ${problem}` } };
    return inner(req);
  };
}

/** The parameters of a request without the signing ones, for exact comparisons. */
export function businessParams(req: RecordedRequest): Record<string, string> {
  const { signature: _s, timestamp: _t, recvWindow: _r, ...rest } = req.params;
  return rest;
}
