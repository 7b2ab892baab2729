import { describe, expect, it } from 'vitest';
import type { BigDec } from '../core/bigDecimal.js';
import { bigText } from '../core/bigDecimalText.js';
import type { RoundTrip } from './result.js';
import type { TripAmounts } from './roundTrips.js';
import { TripStore } from './tripStore.js';

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** A random value: up to 22 digits (past a safe integer at times), trailing zeros at times, a sign. */
function randomBig(rnd: () => number): BigDec {
  let digits = '';
  const n = 1 + Math.floor(rnd() * 22);
  for (let i = 0; i < n; i++) digits += String(Math.floor(rnd() * 10));
  if (rnd() < 0.3) digits += '000';
  const m = BigInt(digits) * (rnd() < 0.3 ? -1n : 1n);
  return { m, e: Math.floor(rnd() * 30) - 20 };
}

/** A trip and its amounts, the texts printed from the values as roundTrips.ts prints them. */
function tripOf(a: TripAmounts, over: Partial<RoundTrip> = {}): [RoundTrip, TripAmounts] {
  const trip: RoundTrip = { strategy: 'sma', symbol: 'BTC_USDT', side: 'LONG', entryT: 1722470459999, exitT: 1722470519999, qty: bigText(a.qty), entryPrice: a.entryPrice === undefined ? 'NaN' : bigText(a.entryPrice), exitPrice: bigText(a.exitPrice), pnl: bigText(a.pnl), fees: bigText(a.fees), returnPct: -0.0885551, ...over };
  return [trip, a];
}

describe('TripStore', () => {
  it('reads back what JSON gave for each trip, odd values and names included, across spilled chunks', () => {
    const rnd = lcg(5);
    const small = (m: bigint, e: number): BigDec => ({ m, e });
    const base: TripAmounts = { qty: small(1n, -1), entryPrice: small(6462801n, -2), exitPrice: small(647n, 2), pnl: small(-5723n, -3), fees: small(1293n, -2) };
    const cases: [RoundTrip, TripAmounts][] = [
      tripOf(base),
      tripOf(base, { side: 'SHORT', strategy: 'a "quoted"\\name\n', symbol: 'ÉTH_€', returnPct: -0, exitT: -0 }),
      tripOf({ ...base, entryPrice: undefined }),
      tripOf(base, { entryT: Number.NaN }),
      tripOf(base, { returnPct: Number.POSITIVE_INFINITY }),
      tripOf({ ...base, pnl: small(123456789012345678901234567890n, -12) }),
      tripOf({ ...base, fees: small(0n, 0) }),
    ];
    for (let i = 0; i < 300; i++) {
      const a: TripAmounts = { qty: randomBig(rnd), entryPrice: randomBig(rnd), exitPrice: randomBig(rnd), pnl: randomBig(rnd), fees: randomBig(rnd) };
      cases.push(tripOf(a, { entryT: Math.floor(rnd() * 2e12), exitT: Math.floor(rnd() * 2e12), side: rnd() < 0.5 ? 'LONG' : 'SHORT', returnPct: (rnd() - 0.5) * 10 }));
    }
    const store = new TripStore({ chunkRows: 4, memChunks: 1, bufferBytes: 64 });
    for (const [t, a] of cases) store.push(t, a);
    expect(store.length).toBe(cases.length);
    const want = cases.map(([t]) => JSON.parse(JSON.stringify(t)) as unknown);
    expect([...store]).toStrictEqual(want);
    expect([...store]).toStrictEqual(want);
    store.dispose();
    expect([...store]).toStrictEqual([]);
  });
});
