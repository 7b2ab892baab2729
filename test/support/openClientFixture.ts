/**
 * The loopback server and OpenClient of the open-client integration tests: a fresh pair per
 * test, one server standing for the three hosts (path prefixes /market and /depth), and a clock
 * the test moves by hand so rate-limit expiry needs no waiting.
 */
import { afterEach, beforeEach } from 'vitest';
import type { Clock } from '../../src/core/index.js';
import { OpenClient } from '../../src/exchange/index.js';
import { LoopbackServer } from './LoopbackServer.js';
import { OPEN_KEY, OPEN_SECRET } from './openRoutes.js';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

/** Retries that take milliseconds. */
export const FAST_RETRY = { attempts: 3, baseDelayMs: 1, maxDelayMs: 4 };

/** The current test's server, client and clock (replaced before each test). */
export interface OpenClientFixture {
  server: LoopbackServer;
  client: OpenClient;
  clock: ManualClock;
  /** Another client on the same server and clock, with options replaced. */
  makeClient(extra?: Partial<ConstructorParameters<typeof OpenClient>[0]>): OpenClient;
}

/** Registers the per-test setup and teardown; call once at the top of a test file. */
export function openClientFixture(): OpenClientFixture {
  const f = {
    makeClient(extra: Partial<ConstructorParameters<typeof OpenClient>[0]> = {}): OpenClient {
      return new OpenClient({
        baseUrl: f.server.url,
        // Path prefixes stand for the three hosts, so routing is visible in the request path.
        marketUrl: `${f.server.url}/market`,
        depthUrl: `${f.server.url}/depth`,
        apiKey: OPEN_KEY,
        apiSecret: OPEN_SECRET,
        timeoutMs: 2_000,
        clock: f.clock,
        retry: FAST_RETRY,
        ...extra,
      });
    },
  } as OpenClientFixture;
  beforeEach(async () => {
    f.server = await LoopbackServer.start();
    f.clock = new ManualClock(1_700_000_000_000);
    f.client = f.makeClient();
  });
  afterEach(async () => {
    await f.client.close();
    await f.server.close();
  });
  return f;
}
