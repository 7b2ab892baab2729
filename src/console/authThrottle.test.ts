import { describe, expect, it } from 'vitest';
import { AuthThrottle } from './authThrottle.js';

function setup(): { t: AuthThrottle; lines: { o: Record<string, unknown>; m: string }[]; clock: { now: number } } {
  const lines: { o: Record<string, unknown>; m: string }[] = [];
  const clock = { now: 1_000_000 };
  const t = new AuthThrottle({ warn: (o, m) => void lines.push({ o: o as Record<string, unknown>, m }) }, { now: () => clock.now });
  return { t, lines, clock };
}

describe('wrong-token throttle', () => {
  it('blocks an address after five wrong tokens, doubling up to a minute; the right token forgives it', () => {
    const { t, clock } = setup();
    for (let i = 0; i < 5; i++) t.refused('10.0.0.9', 'wrong', {});
    expect(t.blockedFor('10.0.0.9')).toBe(0);
    const blocks: number[] = [];
    for (let i = 0; i < 9; i++) {
      t.refused('10.0.0.9', 'wrong', {});
      blocks.push(t.blockedFor('10.0.0.9'));
      clock.now += t.blockedFor('10.0.0.9');
    }
    expect(blocks).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(t.blockedFor('10.0.0.8')).toBe(0);
    // Requests while blocked and missing tokens do not lengthen it.
    t.refused('10.0.0.9', 'wrong', {});
    t.refused('10.0.0.9', 'throttled', {});
    t.refused('10.0.0.9', 'missing', {});
    expect(t.blockedFor('10.0.0.9')).toBe(60_000);
    t.succeeded('10.0.0.9');
    expect(t.blockedFor('10.0.0.9')).toBe(0);
    for (let i = 0; i < 5; i++) t.refused('10.0.0.9', 'wrong', {});
    expect(t.blockedFor('10.0.0.9')).toBe(0);
  });

  it('logs the first refusal of an address as it happens and the rest as one summary per address', () => {
    const { t, lines, clock } = setup();
    for (let i = 0; i < 2000; i++) t.refused('10.0.0.9', i < 10 ? 'wrong' : 'throttled', { path: '/api/halt' });
    t.refused('10.0.0.7', 'missing', { path: '/api/status' });
    expect(lines.map((l) => [l.o.from, l.o.auth, l.o.path])).toEqual([
      ['10.0.0.9', 'wrong', '/api/halt'],
      ['10.0.0.7', 'missing', '/api/status'],
    ]);
    clock.now += 60_000;
    t.flush();
    expect(lines).toHaveLength(3);
    expect(lines[2]?.o).toEqual({ from: '10.0.0.9', refused: 1999, wrong: 9, missing: 0, throttled: 1990, sec: 60 });
    expect(lines[2]?.m).toBe('console requests refused: 1999 more from 10.0.0.9 (wrong token 9, no token 0, while blocked 1990)');
    // A new window: the next refusal is logged as it happens again; nothing to summarise, nothing logged.
    t.flush();
    expect(lines).toHaveLength(3);
    t.refused('10.0.0.9', 'throttled', {});
    expect(lines).toHaveLength(4);
  });

  it('remembers a bounded number of addresses, summarising the ones it forgets', () => {
    const lines: string[] = [];
    const t = new AuthThrottle({ warn: (_o, m) => void lines.push(m) }, { maxAddresses: 3, now: () => 0 });
    for (let a = 0; a < 10; a++) for (let i = 0; i < 3; i++) t.refused(`10.0.1.${a}`, 'missing', {});
    expect(lines.filter((m) => m.startsWith('console requests refused: 2 more'))).toHaveLength(7);
    t.flush();
    expect(lines.filter((m) => m.startsWith('console requests refused: 2 more'))).toHaveLength(10);
  });
});
