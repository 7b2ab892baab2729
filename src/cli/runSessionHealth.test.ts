import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Bus } from '../bus/Bus.js';
import { VirtualClock } from '../core/clock.js';
import { silentLogger } from '../execution/log.js';
import type { TradingStateMachine } from '../risk/tradingState.js';
import { Ledger } from '../store/Ledger.js';
import { fillDisk } from '../store/testFullDisk.js';
import { watchExchange } from './runSessionHealth.js';

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('watchExchange on a ledger that cannot be written', () => {
  it('an exchange gone silent still halts trading; the check neither throws from its timer nor hides the failure', async () => {
    vi.useFakeTimers();
    const dir = mkdtempSync(join(tmpdir(), 'kancil-watch-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    const told: string[] = [];
    const ledger = Ledger.open(path, { onWriteFailure: (err) => told.push((err as Error).message) });
    const room = fillDisk(path);
    const clock = new VirtualClock(1_000_000);
    const halted: (string | undefined)[] = [];
    const states = { setExchangeUnreachable: (reason: string | undefined) => halted.push(reason) } as unknown as TradingStateMachine;
    const stop = watchExchange({ bus: new Bus(), states, ledger, clock, log: silentLogger, probe: () => Promise.reject(new Error('timeout')), silenceMs: 1000, live: false });
    for (let t = 0; t < 12; t++) {
      clock.advanceTo(clock.now() + 100);
      // Before: the journal's SqliteError was thrown out of the interval's callback (a crash).
      await vi.advanceTimersByTimeAsync(100);
    }
    stop();
    expect(halted).toEqual(['exchange unreachable: no stream message for 1 s and no answer to a REST probe (timeout)']);
    expect(told).toEqual(['database or disk is full']);
    room();
    ledger.close();
  });
});
