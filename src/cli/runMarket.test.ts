import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { symbolInfoOf } from '../backtest/Backtest.js';
import { Bus } from '../bus/Bus.js';
import { RunMarket } from './runMarket.js';
import { StartupStopped } from './startupRetry.js';

describe('RunMarket.whenReady', () => {
  it('ends its wait for books that never come as soon as its signal says so, naming the reason', async () => {
    // Never started: its book is never ready, as behind an in-process sandbox that failed.
    const market = new RunMarket({
      bus: new Bus(),
      hosts: { stream_url: 'ws://127.0.0.1:9' },
      symbols: [symbolInfoOf('BTC_IDR', [])],
      snapshots: { depth: () => Promise.reject(new Error('not asked')) },
      log: pino({ level: 'silent' }),
      now: () => Date.now(),
    });
    const stop = new AbortController();
    const waited = market.whenReady(600_000, stop.signal);
    stop.abort('sandbox failed in stream housekeeping: boom');
    const err = await waited.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupStopped);
    expect((err as StartupStopped).message).toBe('stopped during start-up (sandbox failed in stream housekeeping: boom) while waiting for the order books');
    expect((err as StartupStopped).during).toBe('while waiting for the order books');
    await market.close();
  });
});
