import { describe, expect, it } from 'vitest';
import { ExchangeLiveness, type LivenessChange } from './liveness.js';

/** A monitor on a virtual clock whose probe the test answers by hand. */
function setup(silenceMs = 10_000) {
  let now = 0;
  const changes: LivenessChange[] = [];
  const probes: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const l = new ExchangeLiveness({
    silenceMs,
    probeTimeoutMs: 3_600_000, // the test settles each probe itself
    now: () => now,
    probe: () => new Promise<void>((resolve, reject) => probes.push({ resolve, reject })),
    onChange: (c) => changes.push(c),
  });
  const at = async (t: number): Promise<void> => {
    now = t;
    l.check();
    await new Promise((r) => setImmediate(r));
  };
  return { l, changes, probes, at };
}

describe('ExchangeLiveness: silence on every stream plus an unanswered probe', () => {
  it('a frozen exchange (streams silent, the probe unanswered) is unreachable after the silence; its first answer ends it with the duration', async () => {
    const { l, changes, probes, at } = setup();
    await at(4_000);
    expect(probes).toHaveLength(0); // streams quiet for less than half the silence: no probe yet
    await at(5_000);
    expect(probes).toHaveLength(1);
    probes[0]?.reject(new Error('timeout after 10000 ms'));
    await at(9_000);
    expect(changes).toEqual([]); // not silent long enough
    await at(10_000);
    expect(changes).toEqual([{ down: true, silentMs: 10_000, reason: 'exchange unreachable: no stream message for 10 s and no answer to a REST probe (timeout after 10000 ms)' }]);
    expect(l.down).toBe(true);
    await at(15_000);
    expect(probes).toHaveLength(2); // probed again while down
    probes[1]?.resolve();
    await at(16_000);
    expect(changes.at(-1)).toEqual({ down: false, forMs: 6_000, reason: 'exchange answered again after 6 s unreachable' });
    expect(l.down).toBe(false);
  });

  it('a quiet market whose REST host answers is no outage', async () => {
    const { changes, probes, at } = setup();
    for (let t = 1_000; t <= 60_000; t += 1_000) {
      await at(t);
      for (const p of probes.splice(0)) p.resolve();
    }
    expect(changes).toEqual([]);
  });

  it('streams that keep talking need no probe, even with REST failing (the breaker handles that)', async () => {
    const { l, changes, probes, at } = setup();
    for (let t = 1_000; t <= 60_000; t += 1_000) {
      l.heard();
      await at(t);
    }
    expect(probes).toHaveLength(0);
    expect(changes).toEqual([]);
  });

  it('a stream message after a failed probe clears it: silence must start again', async () => {
    const { l, changes, probes, at } = setup();
    await at(5_000);
    probes[0]?.reject(new Error('ECONNREFUSED'));
    await at(6_000);
    l.heard();
    await at(12_000);
    expect(changes).toEqual([]);
  });
});
