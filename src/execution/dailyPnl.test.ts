import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { addFill, DailyPnl, markedPnl, PENDING_KEPT, pnlSplit, type SymbolBook } from './dailyPnl.js';

const fill = (side: 'BUY' | 'SELL', qty: string, price: string, strategy: string) => ({ strategy, symbol: 'BTC_USDT', side, qty: new Decimal(qty), quoteQty: new Decimal(qty).mul(price), commission: new Decimal(0), commissionAsset: 'USDT' });

describe('DailyPnl', () => {
  it('marks the day\'s fills to market per strategy and resets at 00:00 UTC', () => {
    const d = new DailyPnl();
    const day = Date.UTC(2026, 0, 5);
    d.add(day + 1000, fill('BUY', '0.01', '60000', 's.1'));
    d.add(day + 2000, fill('BUY', '1', '1', 'other.1'));
    const mark = () => new Decimal('59000');
    // Bought 0.01 at 60000, marked at 59000: -10.
    expect(d.of('s.1', day + 3000, mark).toFixed()).toBe('-10');
    expect(d.of('s', day + 3000, mark).toFixed()).toBe('0');
    expect(d.of('s.1', day + 86_400_000, mark).toFixed()).toBe('0');
  });
});

describe('DailyPnl folds queued fills exactly as adding them at once', () => {
  /** A small deterministic generator (the same fills on every run). */
  function lcg(seed: number): () => number {
    let s = seed;
    return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  }
  const symbols = ['BTC_USDT', 'ETH_USDT', 'ETH_BTC'];
  const strategies = ['a', 'b', 'a-1'];

  it('gives the PnL of the eager per-(strategy, symbol) books for every question, across day boundaries', () => {
    const rnd = lcg(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const d = new DailyPnl();
    let eager = new Map<string, SymbolBook>();
    let day = -1;
    const marks = new Map<string, Decimal>([['BTC_USDT', new Decimal('60123.45')], ['ETH_USDT', new Decimal('3001.7')]]);
    const mark = (s: string) => marks.get(s);
    let t = Date.UTC(2026, 0, 5, 22);
    let asked = 0;
    for (let i = 0; i < 2000; i++) {
      t += Math.floor(rnd() * 60_000);
      if (Math.floor(t / 86_400_000) !== day) {
        day = Math.floor(t / 86_400_000);
        eager = new Map();
      }
      const symbol = pick(symbols);
      const [base, quote] = symbol.split('_') as [string, string];
      const qty = new Decimal(Math.floor(rnd() * 1e6)).div(1e5);
      const price = new Decimal(Math.floor(rnd() * 1e8)).div(1e3);
      const quoteQty = qty.mul(price);
      const commissionAsset = pick([base, quote, 'BNB', null]);
      const commission = commissionAsset === null ? new Decimal(0) : quoteQty.mul('0.001');
      const f = { strategy: pick(strategies), symbol, side: pick(['BUY', 'SELL'] as const), qty, quoteQty, commission, commissionAsset };
      d.add(t, f);
      addFill(eager, f);
      // Questions at irregular points: none for long runs of fills, sometimes after each one.
      if (rnd() < (i % 500 < 250 ? 0.02 : 0.5)) {
        for (const s of [...strategies, 'none']) {
          let want = new Decimal(0);
          for (const [key, b] of eager) if (key.startsWith(`${s} `)) want = want.plus(markedPnl(b, mark(b.symbol)));
          const got = d.of(s, t, mark);
          expect(got.toFixed(), `${s} at fill ${i}`).toBe(want.toFixed());
          asked++;
        }
      }
    }
    expect(asked).toBeGreaterThan(100);
  });

  it('holds at most PENDING_KEPT fills when nobody asks, and answers as if it had held them all', () => {
    const d = new DailyPnl();
    const eager = new Map<string, SymbolBook>();
    const day = Date.UTC(2026, 0, 5);
    for (let i = 0; i < 1000; i++) {
      const f = fill(i % 3 === 0 ? 'SELL' : 'BUY', '0.01', String(60_000 + (i % 7)), 's');
      d.add(day + i, f);
      addFill(eager, f);
      expect(d.queued).toBeLessThan(PENDING_KEPT);
    }
    const mark = () => new Decimal('59000');
    expect(d.of('s', day + 2000, mark).toFixed()).toBe(markedPnl(eager.get('s BTC_USDT') as SymbolBook, mark()).toFixed());
  });

  it('refuses a fill whose symbol has no BASE_QUOTE form when it arrives', () => {
    const d = new DailyPnl();
    expect(() => d.add(0, { ...fill('BUY', '1', '1', 's'), symbol: 'BTCUSDT' })).toThrow(/BTCUSDT/);
  });
});

describe('DailyPnl buckets a fill by its exchange transaction time', () => {
  const day = Date.UTC(2026, 0, 5);
  const next = day + 86_400_000;
  const mark = () => new Decimal('59000');
  const dated = (E: number | undefined) => ({ ...fill('BUY', '0.01', '60000', 's'), E });

  it("a fill of 23:59:59.9 recovered after midnight is not counted in the new day's loss", () => {
    const d = new DailyPnl();
    d.add(day + 3_600_000, dated(day + 3_600_000));
    expect(d.of('s', next - 5_000, mark).toFixed()).toBe('-10');
    // Reconciliation finds the second fill 0.6 s after midnight on our clock.
    d.add(next + 500, dated(next - 100));
    expect(d.of('s', next + 1_000, mark).toFixed()).toBe('0');
  });

  it('a fill stamped after midnight that arrives while our clock is still before it counts in the new day', () => {
    const d = new DailyPnl();
    d.add(next - 300, dated(next + 200));
    // Not today's (the exchange's clock already says tomorrow) ...
    expect(d.of('s', next - 100, mark).toFixed()).toBe('0');
    // ... and not lost at the roll-over either.
    expect(d.of('s', next + 1_000, mark).toFixed()).toBe('-10');
    expect(d.of('s', next + 86_400_000, mark).toFixed()).toBe('0');
  });

  it('without a usable transaction time (none, 0, not an integer) the arrival time on our clock decides', () => {
    const d = new DailyPnl();
    for (const E of [undefined, 0, Number.NaN, 1.5]) d.add(next + 500, dated(E));
    expect(d.of('s', next + 1_000, mark).toFixed()).toBe('-40');
  });

  it('refuses a fill whose symbol has an empty quote (BTC_), as splitSymbol does', () => {
    const d = new DailyPnl();
    for (const symbol of ['BTC_', '_USDT', 'BTCUSDT']) expect(() => d.add(day, { ...fill('BUY', '1', '1', 's'), symbol }), symbol).toThrow(/BASE_QUOTE/);
  });
});

describe('pnlSplit: realized and unrealized at average cost', () => {
  const f = (side: 'BUY' | 'SELL', qty: string, price: string, commission = '0', commissionAsset: string | null = null) => ({ strategy: 's', symbol: 'BTC_USDT', side, qty: new Decimal(qty), quoteQty: new Decimal(qty).mul(price), commission: new Decimal(commission), commissionAsset });

  it('splits a long trimmed at a profit: the sold part realized at its average cost, the rest unrealized at the mark; they add up to the marked PnL', () => {
    const books = new Map<string, SymbolBook>();
    addFill(books, f('BUY', '1', '100'));
    addFill(books, f('BUY', '1', '110')); // average cost 105
    addFill(books, f('SELL', '0.5', '120', '0.06', 'USDT'));
    const b = books.get('s BTC_USDT');
    if (!b) throw new Error('no book');
    const s = pnlSplit(b, new Decimal('90'));
    expect(s.realized.toFixed()).toBe('7.44'); // 0.5 x (120 - 105) - 0.06
    expect(s.unrealized.toFixed()).toBe('-22.5'); // 1.5 x (90 - 105)
    expect(s.realized.plus(s.unrealized).eq(markedPnl(b, new Decimal('90')))).toBe(true);
  });

  it('crossing through zero realizes the whole old side and opens the new one at the fill price; flat means all realized', () => {
    const books = new Map<string, SymbolBook>();
    addFill(books, f('BUY', '2', '100', '0.002', 'BTC')); // position 1.998 costing 200
    addFill(books, f('SELL', '3', '110')); // closes 1.998, opens a short of 1.002 at 110
    const b = books.get('s BTC_USDT');
    if (!b) throw new Error('no book');
    expect(b.position.toFixed()).toBe('-1.002');
    expect(b.basis.toFixed()).toBe('-110.22');
    const s = pnlSplit(b, new Decimal('110'));
    expect(s.unrealized.isZero()).toBe(true);
    expect(s.realized.toFixed()).toBe(markedPnl(b, new Decimal('110')).toFixed());
    addFill(books, f('BUY', '1.002', '105'));
    expect(b.position.isZero()).toBe(true);
    expect(pnlSplit(b, new Decimal('1')).realized.eq(b.cash)).toBe(true);
    expect(pnlSplit(b, new Decimal('1')).unrealized.isZero()).toBe(true);
  });
});
