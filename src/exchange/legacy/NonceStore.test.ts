import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParseError } from '../../core/index.js';
import { FileNonceStore, TimeNonceStore } from './NonceStore.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kancil-nonce-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('nonces', () => {
  it('TimeNonceStore: strictly increasing within a millisecond and follows the clock', () => {
    const clock = { t: 1_000, now(): number { return this.t; } };
    const s = new TimeNonceStore(clock);
    expect([s.next(), s.next(), s.next()]).toEqual([1_000_000, 1_000_001, 1_000_002]);
    clock.t = 2_000;
    expect(s.next()).toBe(2_000_000);
  });

  it('FileNonceStore: increases across restarts even when the clock steps back', () => {
    const path = join(dir, 'sub', 'nonce');
    const clock = { t: 5_000, now(): number { return this.t; } };
    const first = new FileNonceStore(path, clock);
    const a = first.next();
    const b = first.next();
    // "Restart" with a clock 4 seconds behind: the persisted value still wins.
    clock.t = 1_000;
    const second = new FileNonceStore(path, clock);
    const c = second.next();
    expect(a).toBe(5_000_000);
    expect(b).toBe(5_000_001);
    expect(c).toBe(5_000_002);
  });

  it('FileNonceStore refuses a corrupt file instead of guessing', () => {
    const path = join(dir, 'nonce');
    writeFileSync(path, 'garbage');
    expect(() => new FileNonceStore(path)).toThrow(ParseError);
  });
});
