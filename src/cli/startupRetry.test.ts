import { describe, expect, it } from 'vitest';
import { AuthenticationError, ExchangeError, NetworkError, RateLimitedError } from '../core/errors.js';
import { retryStartup } from './startupRetry.js';

function clock(): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return { now: () => t, sleep: (ms) => ((t += ms), slept.push(ms), Promise.resolve()), slept };
}

describe('retryStartup', () => {
  it('waits out a 418 for its Retry-After and a 503 maintenance with a growing delay, then succeeds', async () => {
    const c = clock();
    const errors = [new RateLimitedError('GET /t', 2_000, 2_000, 418), new ExchangeError(503, -1016, 'maintenance', 'GET /t'), new NetworkError('GET /t', 'ECONNRESET')];
    const got = await retryStartup('time', () => (errors.length > 0 ? Promise.reject(errors.shift() as Error) : Promise.resolve(42)), { ...c, random: () => 1 });
    expect(got).toBe(42);
    expect(c.slept).toEqual([2_000, 1_000, 2_000]);
  });

  it('asks again after a refusal of the timestamp: the request was never processed', async () => {
    const c = clock();
    const errors = [new ExchangeError(400, -1021, 'Timestamp for this request is outside of the recvWindow.', 'GET /open/v1/orders')];
    const got = await retryStartup('start-up reconciliation', () => (errors.length > 0 ? Promise.reject(errors.shift() as Error) : Promise.resolve('ok')), { ...c, random: () => 1 });
    expect(got).toBe('ok');
    expect(c.slept).toEqual([500]);
  });

  it('spreads the growing delay between half and all of it, capped at 8 s', async () => {
    const c = clock();
    let left = 8;
    await retryStartup('time', () => (left-- > 0 ? Promise.reject(new NetworkError('GET /t', 'ECONNRESET')) : Promise.resolve(1)), { ...c, random: () => 0 });
    expect(c.slept).toEqual([250, 500, 1_000, 2_000, 4_000, 4_000, 4_000, 4_000]);
  });

  it('gives up at the bound with the last error, and at once on an error that will not pass', async () => {
    const c = clock();
    const err = await retryStartup('time', () => Promise.reject(new ExchangeError(503, -1016, 'maintenance', 'GET /t')), { ...c, boundMs: 10_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect(c.slept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10_000);
    const c2 = clock();
    await expect(retryStartup('account', () => Promise.reject(new AuthenticationError(401, 'GET /a', 'bad key')), c2)).rejects.toBeInstanceOf(AuthenticationError);
    expect(c2.slept).toEqual([]);
    const c3 = clock();
    await expect(retryStartup('orders', () => Promise.reject(new ExchangeError(400, -1102, 'Mandatory parameter symbol was not sent', 'GET /o')), c3)).rejects.toBeInstanceOf(ExchangeError);
    expect(c3.slept).toEqual([]);
  });
});

describe('retryStartup with a stop signal', () => {
  it('a stop ends the wait after a failure, naming the step; a step that succeeds is not cut short by it', async () => {
    const stop = new AbortController();
    stop.abort('signal SIGINT');
    // Already stopped, but nothing fails: the step runs (the run stops in order once started).
    await expect(retryStartup('symbols', () => Promise.resolve(7), { signal: stop.signal })).resolves.toBe(7);
    const live = new AbortController();
    let calls = 0;
    const waiting = retryStartup(
      'server time',
      () => {
        calls++;
        if (calls === 1) setTimeout(() => live.abort('signal SIGTERM'), 10);
        return Promise.reject(new RateLimitedError('GET /t', 60_000, 60_000, 418));
      },
      { signal: live.signal },
    );
    // The Retry-After is a minute; the stop ends the wait at once.
    await expect(waiting).rejects.toMatchObject({ name: 'StartupStopped', step: 'server time', reason: 'signal SIGTERM' });
    expect(calls).toBe(1);
  });
});
