import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { mulberry32 } from '../core/random.js';
import type { RecordedItem } from '../record/reader.js';
import { StepClock, TwoClockSplitter, twoClockBatches } from './twoClocks.js';

const ONE = new Decimal(1);

/** A depth diff of `symbol` stamped E, received at t. */
function diff(t: number, E: number, id: number, symbol = 'BTC_USDT'): RecordedItem {
  return { kind: 'market', recvTime: t, stream: undefined, event: { type: 'depthDiff', E, symbol, firstUpdateId: id, finalUpdateId: id, bids: [], asks: [] } };
}

/** A trade of `symbol` printed at T, its message stamped E = T, received at t. */
function trade(t: number, T: number, id: number, symbol = 'BTC_USDT'): RecordedItem {
  return { kind: 'market', recvTime: t, stream: undefined, event: { type: 'trade', E: T, symbol, tradeId: String(id), price: ONE, qty: ONE, tradeTime: T, isBuyerMaker: false } };
}

/** A best bid/ask (no exchange part) received at t. */
function ticker(t: number): RecordedItem {
  return { kind: 'market', recvTime: t, stream: undefined, event: { type: 'bookTicker', E: t, symbol: 'BTC_USDT', updateId: t, bidPrice: ONE, bidQty: ONE, askPrice: ONE, askQty: ONE } };
}

const CLOCK_NAME = { [StepClock.both]: 'both', [StepClock.exchange]: 'exchange', [StepClock.local]: 'local' } as const;

/** The steps of `input` (each [receive time, item]) as `name@time/clock` texts, pushed in one go. */
function steps(input: readonly (readonly [number, RecordedItem])[], maxLag = 1000): string[] {
  const s = new TwoClockSplitter(maxLag);
  for (const [t, it] of input) s.push(t, it);
  const out = { times: [] as number[], items: [] as RecordedItem[], clocks: [] as StepClock[] };
  s.drain(out, true);
  return out.items.map((it, i) => `${label(it)}@${out.times[i]}/${CLOCK_NAME[out.clocks[i] as StepClock]}`);
}

function label(it: RecordedItem): string {
  if (it.kind === 'snapshot') return 'snap';
  const e = it.event;
  return e.type === 'depthDiff' ? `d${e.firstUpdateId}` : e.type === 'trade' ? `t${e.tradeId}` : e.type;
}

describe('TwoClockSplitter', () => {
  it('gives an item received when it happened one step, and a late one an exchange step at its exchange time and a local step when received', () => {
    expect(steps([[10, diff(10, 10, 1)], [12, ticker(12)]])).toEqual(['d1@10/both', 'bookTicker@12/both']);
    // Trade 7 printed at 5 is received at 12, after the diff stamped 8 (received 9): the exchange
    // applies the trade first, the strategy hears the diff first.
    expect(steps([[9, diff(9, 8, 1)], [12, trade(12, 5, 7)]])).toEqual(['t7@5/exchange', 'd1@8/exchange', 'd1@9/local', 't7@12/local']);
  });

  it('orders steps of one ms by receive order, an item before its own local step', () => {
    expect(steps([[10, diff(10, 7, 1)], [10, trade(10, 7, 2)], [10, trade(10, 10, 3)]])).toEqual(['d1@7/exchange', 't2@7/exchange', 'd1@10/local', 't2@10/local', 't3@10/both']);
  });

  it('clamps the exchange time: not after the receive time, not before its stream, not beyond the lag bound', () => {
    // Skew: a diff stamped after it was received is one step at its receive time.
    expect(steps([[10, diff(10, 15, 1)]])).toEqual(['d1@10/both']);
    // Trades keep their order: an earlier print received later is raised to the previous trade's time.
    expect(steps([[10, trade(10, 6, 1)], [11, trade(11, 4, 2)]])).toEqual(['t1@6/exchange', 't2@6/exchange', 't1@10/local', 't2@11/local']);
    // Streams interleave: the diff stream's order does not hold trades back.
    expect(steps([[10, diff(10, 9, 1)], [11, trade(11, 4, 2)]])).toEqual(['t2@4/exchange', 'd1@9/exchange', 'd1@10/local', 't2@11/local']);
    // Per symbol: another symbol's diff does not raise this one's.
    expect(steps([[10, diff(10, 9, 1, 'ETH_USDT')], [11, diff(11, 5, 2)]])).toEqual(['d2@5/exchange', 'd1@9/exchange', 'd1@10/local', 'd2@11/local']);
    // The bound: 3000 ms late becomes 1000 ms before receipt; 0 gives one clock.
    expect(steps([[5000, trade(5000, 2000, 1)]])).toEqual(['t1@4000/exchange', 't1@5000/local']);
    expect(steps([[10, trade(10, 5, 1)], [12, diff(12, 3, 2)]], 0)).toEqual(['t1@10/both', 'd2@12/both']);
  });

  it('gives what one replay order would, whatever the batches: times never go back, each item once per clock, the exchange part first', async () => {
    const rnd = mulberry32(7);
    const input: [number, RecordedItem][] = [];
    let t = 1_000;
    // Enough items that the splitter compacts its slots (from 4,096 spent ones) with steps still queued.
    for (let i = 0; i < 12_000; i++) {
      t += Math.floor(rnd() * 3);
      const r = rnd();
      const lag = rnd() < 0.1 ? Math.floor(rnd() * 1500) : Math.floor(rnd() * 5);
      // Two symbols: four streams, each keeping its own order.
      const symbol = rnd() < 0.5 ? 'BTC_USDT' : 'ETH_USDT';
      input.push([t, r < 0.45 ? diff(t, t - lag, i, symbol) : r < 0.9 ? trade(t, t - lag, i, symbol) : ticker(t)]);
    }
    // Reference, written out: each item's exchange time clamped as the header says, its steps
    // sorted by (time, receive order, exchange part first); one step when x = t.
    const last = new Map<string, number>();
    const ref: { at: number; i: number; part: number; clock: StepClock }[] = [];
    input.forEach(([tt, it], i) => {
      const e = it.kind === 'market' && it.event.type === 'depthDiff' ? it.event.E : it.kind === 'market' && it.event.type === 'trade' ? it.event.tradeTime : undefined;
      if (e === undefined || it.kind !== 'market') return void ref.push({ at: tt, i, part: 0, clock: StepClock.both });
      const key = `${it.event.symbol} ${it.event.type}`;
      const x = Math.min(tt, Math.max(e, last.get(key) ?? -Infinity, tt - 1000));
      last.set(key, x);
      if (x === tt) ref.push({ at: tt, i, part: 0, clock: StepClock.both });
      else ref.push({ at: x, i, part: 0, clock: StepClock.exchange }, { at: tt, i, part: 1, clock: StepClock.local });
    });
    ref.sort((a, b) => a.at - b.at || a.i - b.i || a.part - b.part);
    const want = ref.map((r) => `${r.i}@${r.at}/${CLOCK_NAME[r.clock]}`);
    async function* batches(size: number) {
      for (let i = 0; i < input.length; i += size) {
        const part = input.slice(i, i + size);
        yield { times: part.map(([tt]) => tt), items: part.map(([, it]) => it) };
      }
    }
    const index = new Map(input.map(([, it], i) => [it, i]));
    for (const size of [1, 7, 1024]) {
      const got: string[] = [];
      const seen = new Map<RecordedItem, StepClock[]>();
      let last = -Infinity;
      for await (const b of twoClockBatches(batches(size), 1000)) {
        b.items.forEach((it, i) => {
          const at = b.times[i] as number;
          const clock = b.clocks?.[i] as StepClock;
          expect(at).toBeGreaterThanOrEqual(last);
          last = at;
          seen.set(it, [...(seen.get(it) ?? []), clock]);
          got.push(`${index.get(it)}@${at}/${CLOCK_NAME[clock]}`);
        });
      }
      expect(got).toEqual(want);
      expect(seen.size).toBe(input.length);
      for (const cs of seen.values()) expect(cs.length === 1 ? cs[0] === StepClock.both : cs[0] === StepClock.exchange && cs[1] === StepClock.local).toBe(true);
    }
  });

  it('drain replaces what a reused output held, a longer batch before a shorter one included', () => {
    const fresh = (): { times: number[]; items: RecordedItem[]; clocks: StepClock[] } => ({ times: [], items: [], clocks: [] });
    const a = new TwoClockSplitter(1000);
    const b = new TwoClockSplitter(1000);
    const reused = fresh();
    for (let i = 0; i < 40; i++) {
      a.push(10_000 + i, trade(10_000 + i, 9_990 + i, i));
      b.push(10_000 + i, trade(10_000 + i, 9_990 + i, i));
    }
    a.drain(reused, true);
    expect(reused.items.length).toBe(80);
    a.push(20_000, diff(20_000, 19_995, 1));
    b.drain(fresh(), true);
    b.push(20_000, diff(20_000, 19_995, 1));
    const want = fresh();
    b.drain(want, true);
    a.drain(reused, true);
    expect(reused).toEqual(want);
    expect(reused.items.length).toBe(2);
  });

  it('refuses receive times that go back', () => {
    const s = new TwoClockSplitter();
    s.push(10, ticker(10));
    expect(() => s.push(9, ticker(9))).toThrow(/must not go back: 9 after 10/);
  });
});
