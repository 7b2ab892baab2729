import { describe, expect, it } from 'vitest';
import { ExchangeError } from '../core/index.js';
import type { SandboxAccount } from './config.js';
import type { RequestContext } from './http-host.js';
import { authenticateOpen, stripSignature } from './open-auth.js';
import { testSandboxConfig } from './test-config.js';
import { hmacHex } from './test-signing.js';

const config = testSandboxConfig();
const keys = new Map<string, SandboxAccount>(config.accounts.map((a) => [a.apiKey, a]));
const alice = config.accounts[0] as SandboxAccount;
const NOW = 1_700_000_000_000;

function ctx(rawQuery: string, rawBody = '', key: string | null = alice.apiKey): RequestContext {
  const params = new Map<string, string>();
  for (const raw of [rawQuery, rawBody]) for (const [k, v] of new URLSearchParams(raw)) params.set(k, v);
  return { method: 'POST', path: '/open/v1/orders', rawQuery, rawBody, params, headers: key === null ? {} : { 'x-mbx-apikey': key }, ip: '127.0.0.1' };
}
const sig = (text: string): string => hmacHex(alice.secret, text);

function codeOf(f: () => unknown): number | string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e.exchangeCode;
    throw e;
  }
  return undefined;
}

describe('open API authentication', () => {
  it('stripSignature removes only the signature pair, wherever it is', () => {
    expect(stripSignature('a=1&signature=ff&b=2')).toBe('a=1&b=2');
    expect(stripSignature('signature=ff')).toBe('');
    expect(stripSignature('a=1&mysignature=2')).toBe('a=1&mysignature=2');
  });

  it('accepts the signature anywhere in the query or body, over query then body', () => {
    const q = `symbol=BTC_USDT&timestamp=${NOW}`;
    expect(authenticateOpen(ctx(`signature=${sig(q)}&${q}`), 'SIGNED', keys, NOW)).toBe(alice);
    const body = 'side=0&type=1';
    expect(authenticateOpen(ctx(q, `${body}&signature=${sig(q + body)}`), 'SIGNED', keys, NOW)).toBe(alice);
  });

  it('timing window: timestamp < serverTime + 1000 and serverTime - timestamp <= recvWindow', () => {
    const at = (ts: number, extra = ''): RequestContext => {
      const q = `timestamp=${ts}${extra}`;
      return ctx(`${q}&signature=${sig(q)}`);
    };
    expect(authenticateOpen(at(NOW + 999), 'SIGNED', keys, NOW)).toBe(alice);
    expect(codeOf(() => authenticateOpen(at(NOW + 1000), 'SIGNED', keys, NOW))).toBe(-1021);
    expect(authenticateOpen(at(NOW - 5000), 'SIGNED', keys, NOW)).toBe(alice);
    expect(codeOf(() => authenticateOpen(at(NOW - 5001), 'SIGNED', keys, NOW))).toBe(-1021);
    expect(authenticateOpen(at(NOW - 60_000, '&recvWindow=60000'), 'SIGNED', keys, NOW)).toBe(alice);
    expect(codeOf(() => authenticateOpen(at(NOW, '&recvWindow=60001'), 'SIGNED', keys, NOW))).toBe(-1131);
  });

  it('security types: NONE needs nothing, API_KEY a valid key, restricted keys refused', () => {
    expect(authenticateOpen(ctx('', '', null), 'NONE', keys, NOW)).toBeUndefined();
    expect(codeOf(() => authenticateOpen(ctx('', '', null), 'API_KEY', keys, NOW))).toBe(-2014);
    expect(authenticateOpen(ctx(''), 'API_KEY', keys, NOW)).toBe(alice);
    const carol = config.accounts[2] as SandboxAccount;
    const q = `timestamp=${NOW}`;
    const c = ctx(`${q}&signature=${hmacHex(carol.secret, q)}`, '', carol.apiKey);
    expect(codeOf(() => authenticateOpen(c, 'SIGNED', keys, NOW))).toBe(-2015);
    expect(authenticateOpen(c, 'API_KEY', keys, NOW)).toBe(carol);
  });
});
