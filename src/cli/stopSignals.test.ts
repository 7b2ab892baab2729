import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onStopSignals, REPEAT_GRACE_MS, type SignalSource } from './stopSignals.js';

function fakeProcess(): SignalSource & { send(sig: NodeJS.Signals): void; count(): number } {
  const e = new EventEmitter();
  return {
    on: (ev, l) => e.on(ev, l),
    off: (ev, l) => e.off(ev, l),
    send: (sig) => void e.emit(sig, sig),
    count: () => e.listenerCount('SIGINT') + e.listenerCount('SIGTERM'),
  };
}

describe('stop signals', () => {
  it('the same signal twice at once (a process group kill) is one request, not a kill half-way through the stop', () => {
    const p = fakeProcess();
    let t = 0;
    const firsts: string[] = [];
    const repeats: string[] = [];
    const off = onStopSignals((s) => firsts.push(s), { source: p, now: () => t, onRepeat: (s, n) => repeats.push(`${s} ${n}`) });
    p.send('SIGINT');
    t += 5;
    p.send('SIGINT');
    p.send('SIGTERM');
    expect(firsts).toEqual(['SIGINT']);
    expect(repeats).toEqual([]);
    // A deliberate second request, later: the caller decides (default: exit at once).
    t += REPEAT_GRACE_MS;
    p.send('SIGINT');
    expect(repeats).toEqual(['SIGINT 1']);
    off();
    expect(p.count()).toBe(0);
  });
});
