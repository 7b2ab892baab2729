import { describe, expect, it } from 'vitest';
import { LISTEN_KEY_VALIDITY_MS, UserStreamRegistry } from './user-streams.js';
import { ManualClock } from './test-config.js';

describe('listen key lifecycle (spec table)', () => {
  it('create -> valid 60 minutes; keep-alive extends; DELETE closes; expiry without keep-alive', () => {
    const clock = new ManualClock();
    const r = new UserStreamRegistry(clock);
    const key = r.createListenKey('alice', 1);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(r.createListenKey('alice', 1)).toBe(key);
    expect(r.createListenKey('alice', 3)).not.toBe(key);
    clock.advance(LISTEN_KEY_VALIDITY_MS - 1);
    expect(r.listenKeyAccount(key)).toEqual({ account: 'alice', kind: 1 });
    expect(r.keepAlive(key, 'bob')).toBe(false);
    expect(r.keepAlive(key, 'alice')).toBe(true);
    clock.advance(LISTEN_KEY_VALIDITY_MS - 1);
    expect(r.sweep().listenKeys).not.toContain(key);
    clock.advance(1);
    expect(r.listenKeyAccount(key)).toBeUndefined();
    expect(r.keepAlive(key, 'alice')).toBe(false);
    expect(r.sweep().listenKeys).toContain(key);
    const k2 = r.createListenKey('alice', 1);
    expect(k2).not.toBe(key);
    expect(r.close(k2, 'alice')).toBe(true);
    expect(r.listenKeyAccount(k2)).toBeUndefined();
    // A DELETEd key is reported by the next sweep so its sockets close.
    expect(r.sweep().listenKeys).toEqual([k2]);
  });

  it('expireListenKey ends a key early', () => {
    const clock = new ManualClock();
    const r = new UserStreamRegistry(clock);
    const key = r.createListenKey('bob', 3);
    expect(r.expireListenKey(key)).toBe(true);
    expect(r.sweep().listenKeys).toEqual([key]);
  });
});

describe('listen tokens', () => {
  it('expirationTime = now + validity, default and maximum 24 h, larger refused', () => {
    const clock = new ManualClock(1_000_000);
    const r = new UserStreamRegistry(clock);
    expect(r.createToken('alice').expirationTime).toBe(1_000_000 + 86_400_000);
    const t = r.createToken('alice', 5000);
    expect(t.expirationTime).toBe(1_005_000);
    expect(() => r.createToken('alice', 86_400_001)).toThrow(RangeError);
    expect(r.tokenInfo(t.token)).toEqual({ account: 'alice', expirationTime: 1_005_000 });
    clock.advance(5000);
    expect(r.tokenInfo(t.token)).toBeUndefined();
    expect(r.sweep().tokens).toEqual([t.token]);
  });
});
