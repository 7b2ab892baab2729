/**
 * Seeded random intents and contexts for the differential test and the benchmark of the risk
 * checker. Values cluster where the rules bite: on and off the tick and step grids, at and past
 * filter bounds, near balances and limits, with every order type, both modes and all states.
 * Decimals come from pre-built pools so generating a million intents stays cheap.
 */
import { Decimal } from '../../core/decimal.js';
import { mulberry32 } from '../../core/random.js';
import type { OrderTypeName, StpModeName, TimeInForceName } from '../../core/enums.js';
import type { Intent, PlaceIntent } from '../../bus/intents.js';
import { fixtureRules } from '../fixtures.js';
import type { RiskRules } from '../rules.js';
import { levels, StaticBook, StaticRiskContext } from '../testkit.js';

/** The seeded PRNG of core, under the name this module uses. */
export const prng = mulberry32;

interface GenSymbol {
  readonly symbol: string;
  readonly base: string;
  readonly quote: string;
  readonly center: number;
  readonly prices: readonly Decimal[];
  readonly qtys: readonly Decimal[];
  readonly quoteQtys: readonly Decimal[];
}

const SPECS = [
  { symbol: 'BTC_IDR', center: 1e9, ps: 0, qs: 5, qMin: 0.00001, qMax: 9000, tick: 1, bounds: ['1', '10000000000', '10000000001', '0.5'] },
  { symbol: 'ETH_USDT', center: 2000, ps: 2, qs: 4, qMin: 0.0001, qMax: 9000, tick: 0.01, bounds: ['0.01', '1000000', '1000000.01', '0.001'] },
  { symbol: 'DOGE_IDR', center: 2000, ps: 0, qs: 0, qMin: 1, qMax: 1e6, tick: 1, bounds: ['1', '0.000000001', '1e-20'] },
  { symbol: 'XRP_IDR', center: 10000, ps: 0, qs: 0, qMin: 1, qMax: 1e6, tick: 1, bounds: ['1'] },
  { symbol: 'PEPE_IDR', center: 0.0002, ps: 8, qs: 0, qMin: 1, qMax: 9e11, tick: 1e-8, bounds: ['0.00000001', '1000', '1000.00000001'] },
] as const;

const POOL = 2048;

function scaled(v: number, scale: number): string {
  return `${Math.round(v * 10 ** scale)}e-${scale}`;
}

function buildSymbol(rnd: () => number, s: (typeof SPECS)[number]): GenSymbol {
  const [base = '', quote = ''] = s.symbol.split('_');
  const prices: Decimal[] = [];
  const qtys: Decimal[] = [];
  const quoteQtys: Decimal[] = [];
  for (let i = 0; i < POOL; i++) {
    const r = rnd();
    // Mostly within PERCENT_PRICE/PRICE_RANGE bands, some far outside.
    const mult = r < 0.8 ? 0.4 + rnd() * 1.4 : 0.05 + rnd() * 8;
    let p = scaled(Math.max(s.center * mult, s.tick), s.ps);
    const k = rnd();
    if (k < 0.1) p = `${Math.round(s.center * mult * 10 ** s.ps)}${1 + Math.floor(rnd() * 9)}e-${s.ps + 1}`;
    else if (k < 0.14) p = s.bounds[Math.floor(rnd() * s.bounds.length)] as string;
    prices.push(new Decimal(p));
    const lq = Math.log(s.qMin / 2) + rnd() * (Math.log(s.qMax * 1.2) - Math.log(s.qMin / 2));
    let q = Math.exp(lq);
    // Realistic sizes most of the time: notional around the balances.
    if (rnd() < 0.7) q = ((0.02 + rnd() * 3) * 1e6) / (s.symbol === 'ETH_USDT' ? 2e5 : s.center);
    let qs = scaled(Math.max(q, 0), s.qs);
    if (qs.startsWith('0e')) qs = scaled(s.qMin, s.qs);
    const j = rnd();
    if (j < 0.12) qs = `${Math.round(q * 10 ** s.qs)}${1 + Math.floor(rnd() * 9)}e-${s.qs + 1}`;
    else if (j < 0.15) qs = [String(s.qMin), String(s.qMax), `${s.qMax * 2}`, '0.00000000001'][Math.floor(rnd() * 4)] as string;
    const qd = new Decimal(qs);
    qtys.push(qd.isZero() ? new Decimal(s.qMin) : qd);
    quoteQtys.push(new Decimal(scaled(rnd() * 3e6 * (s.symbol === 'ETH_USDT' ? 0.005 : 1), 2 + Math.floor(rnd() * 3))).plus('0.01'));
  }
  return { symbol: s.symbol, base, quote, center: s.center, prices, qtys, quoteQtys };
}

function pick<T>(rnd: () => number, a: readonly T[]): T {
  return a[Math.floor(rnd() * a.length)] as T;
}

function dec(rnd: () => number, scale: number, max: number): Decimal {
  return new Decimal(scaled(rnd() * max, scale));
}

function buildContext(rnd: () => number, rules: RiskRules, syms: readonly GenSymbol[], k: number): StaticRiskContext {
  const c = new StaticRiskContext(rules);
  c.mode = rnd() < 0.5 ? 'adjust' : 'reject';
  const st = rnd();
  c.state = st < 0.8 ? 'ACTIVE' : st < 0.95 ? 'REDUCING' : 'HALTED';
  c.now = 1_000_000;
  for (const s of syms) {
    if (rnd() < 0.05) c.states.set(s.symbol, 'HALTED');
    c.balances.set(s.quote, dec(rnd, 2, rnd() < 0.2 ? 1e5 : 1e10));
    c.balances.set(s.base, dec(rnd, 5, rnd() < 0.5 ? 1 : 1e7));
    const pos = rnd() < 0.3 ? new Decimal(0) : dec(rnd, 5, rnd() < 0.5 ? 0.05 : 1e6).mul(rnd() < 0.5 ? -1 : 1);
    c.positions.set(s.base, pos);
    if (rnd() < 0.5) c.openBuy.set(s.symbol, dec(rnd, 5, 0.01));
    if (rnd() < 0.5) c.openSell.set(s.symbol, dec(rnd, 5, 0.01));
    const cnt = (m: number): number => Math.floor(rnd() * m);
    c.counts.set(s.symbol, { total: rnd() < 0.1 ? 200 : cnt(200), algo: cnt(7), iceberg: cnt(7) });
    const a = rnd();
    if (a < 0.8) c.avg.set(s.symbol, new Decimal(scaled(s.center * (0.7 + rnd() * 0.6), 6)));
    const r = rnd();
    if (r < 0.6) c.refs.set(s.symbol, new Decimal(scaled(s.center * (0.8 + rnd() * 0.4), 4)));
    else if (r < 0.7) c.refs.set(s.symbol, null);
    // A book around the center, with odd-lot levels.
    const bids: [string, string][] = [];
    const asks: [string, string][] = [];
    for (let i = 1; i <= 5; i++) {
      bids.push([scaled(s.center * (1 - 0.001 * i), 8), scaled(rnd() * 2e6 / s.center, 6)]);
      asks.push([scaled(s.center * (1 + 0.001 * i), 8), scaled(rnd() * 2e6 / s.center, 6)]);
    }
    c.books.set(s.symbol, new StaticBook(s.symbol, levels(bids), levels(asks), rnd() < 0.92));
  }
  c.exchangeCounts = { total: rnd() < 0.05 ? 1000 : Math.floor(rnd() * 1000), algo: rnd() < 0.05 ? 200 : Math.floor(rnd() * 200) };
  c.ownOpen = Math.floor(rnd() * 12);
  c.placements = Array.from({ length: Math.floor(rnd() * 12) }, () => c.now - Math.floor(rnd() * 2000));
  c.pnl = dec(rnd, 2, 2e5).mul(rnd() < 0.7 ? -1 : 1);
  c.limits = {
    ...(rnd() < 0.5 ? { maxOrderNotional: dec(rnd, 0, 5e7) } : {}),
    ...(rnd() < 0.5 ? { maxOpenOrders: 1 + Math.floor(rnd() * 12) } : {}),
    ...(rnd() < 0.5 ? { maxOrderRate: { count: 1 + Math.floor(rnd() * 12), windowMs: 1000 } } : {}),
    ...(rnd() < 0.5 ? { dailyLossLimit: dec(rnd, 2, 2e5) } : {}),
    ...(rnd() < 0.5 ? { maxPosition: Object.fromEntries(syms.map((s) => [s.base, dec(rnd, 5, rnd() < 0.5 ? 0.1 : 1e7)])) } : {}),
  };
  if (k % 8 === 7) longValues(c, syms);
  // Half the contexts answer free balances in grid units as well (a strategy book does), so both
  // of the balance check's ways meet the reference (long values included: k = 7 has units, 15 not).
  if (k % 16 < 8) c.keepUnits();
  return c;
}

/**
 * Values the fast checker's grid bounds cannot hold (boundsCache.ts): 40-digit reference prices
 * and base balances (divisions), and a maxPosition past 2^52 grid units. Derived without drawing
 * from the generator, so the intent stream stays the same; the exact comparisons behind those
 * bounds then meet the differential too.
 */
function longValues(c: StaticRiskContext, syms: readonly GenSymbol[]): void {
  for (const s of syms) {
    const ref = c.refs.get(s.symbol);
    if (ref) c.refs.set(s.symbol, ref.div(3));
    const free = c.balances.get(s.base);
    if (free) c.balances.set(s.base, free.div(7));
  }
  c.limits = { ...c.limits, maxPosition: Object.fromEntries(syms.map((s) => [s.base, new Decimal('9000000000000000')])) };
}

const TYPES: readonly OrderTypeName[] = ['LIMIT', 'LIMIT', 'LIMIT', 'LIMIT', 'LIMIT', 'LIMIT_MAKER', 'MARKET', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT'];
const TIFS: readonly (TimeInForceName | undefined)[] = [undefined, 'GTC', 'GTC', 'IOC', 'FOK', 'GTX'];
const STPS: readonly StpModeName[] = ['EXPIRE_MAKER', 'EXPIRE_TAKER', 'DECREMENT', 'TRANSFER', 'EXPIRE_BOTH'];

/** A deterministic stream of intents over a fixed set of contexts. */
export class RandomIntents {
  readonly rules: RiskRules;
  readonly contexts: readonly StaticRiskContext[];
  readonly #syms: readonly GenSymbol[];
  readonly #rnd: () => number;
  #n = 0;

  constructor(seed: number, contexts = 64) {
    this.#rnd = prng(seed);
    this.rules = fixtureRules();
    this.#syms = SPECS.map((s) => buildSymbol(this.#rnd, s));
    this.contexts = Array.from({ length: contexts }, (_, k) => buildContext(this.#rnd, this.rules, this.#syms, k));
  }

  /** Index of a context for the next intent. */
  nextContext(): StaticRiskContext {
    return this.contexts[Math.floor(this.#rnd() * this.contexts.length)] as StaticRiskContext;
  }

  /** The next intent. */
  next(): Intent {
    const rnd = this.#rnd;
    const id = `t-${++this.#n}`;
    const k = rnd();
    const s = k < 0.01 ? { symbol: 'NOPE_IDR', prices: this.#syms[0]?.prices ?? [], qtys: this.#syms[0]?.qtys ?? [], quoteQtys: [] } : pick(rnd, this.#syms);
    if (k > 0.98) return { kind: 'cancel', strategy: 'r', intentId: id, symbol: s.symbol, clientId: id };
    if (k > 0.97) return { kind: 'cancelAll', strategy: 'r', intentId: id };
    const orderType = pick(rnd, TYPES);
    const side = rnd() < 0.5 ? 'BUY' : 'SELL';
    const priced = orderType === 'LIMIT' || orderType === 'LIMIT_MAKER' || orderType.endsWith('_LIMIT');
    const stop = orderType.startsWith('STOP') || orderType.startsWith('TAKE');
    // Every intent has the same keys in the same order (absent values undefined), as the
    // strategy runner builds them: one object shape keeps property access monomorphic.
    const tif = pick(rnd, TIFS);
    let price = priced ? pick(rnd, s.prices) : undefined;
    let quantity: Decimal | undefined;
    let quoteOrderQty: Decimal | undefined;
    if (orderType === 'MARKET' && side === 'BUY' && rnd() < 0.4 && s.quoteQtys.length > 0) quoteOrderQty = pick(rnd, s.quoteQtys);
    else quantity = pick(rnd, s.qtys);
    const stopPrice = stop ? pick(rnd, s.prices) : undefined;
    const icebergQty = rnd() < 0.08 ? pick(rnd, s.qtys) : undefined;
    const stpMode = rnd() < 0.05 ? pick(rnd, STPS) : undefined;
    // Shape noise: a missing or a stray parameter now and then.
    const n = rnd();
    if (n < 0.01) price = undefined;
    else if (n < 0.02) price = pick(rnd, s.prices);
    else if (n < 0.025) quantity = pick(rnd, s.qtys).neg();
    else if (n < 0.03) quantity = undefined;
    const i: PlaceIntent = { kind: 'place', strategy: 'r', intentId: id, clientId: id, symbol: s.symbol, side, orderType, timeInForce: tif, quantity, quoteOrderQty, price, stopPrice, icebergQty, stpMode };
    return i;
  }
}

/**
 * A realistic flow for the benchmark: what a few market makers send on a normal day. Limit and
 * post-only orders on the tick and step grids near the mid, some stop-limits, a few market orders,
 * 10% cancels; every user limit configured (so each check runs to the end) and ample balances,
 * so most intents pass. Same object shapes as the strategy runner builds.
 */
export function realisticFlow(seed: number, count: number): { intents: Intent[]; contexts: StaticRiskContext[]; pairs: Uint8Array } {
  const rnd = prng(seed);
  const rules = fixtureRules();
  const syms = [
    { symbol: 'BTC_IDR', base: 'BTC', center: 1_000_000_000, ps: 0, qs: 5, q: 0.002 },
    { symbol: 'ETH_USDT', base: 'ETH', center: 2000, ps: 2, qs: 4, q: 0.5 },
    { symbol: 'PEPE_IDR', base: 'PEPE', center: 0.0002, ps: 8, qs: 0, q: 2e8 },
  ];
  const D = (v: number, s: number): Decimal => new Decimal(scaled(v, s));
  const contexts = Array.from({ length: 4 }, (_, k) => {
    const c = new StaticRiskContext(rules);
    c.mode = k % 2 === 0 ? 'reject' : 'adjust';
    c.now = 1_000_000;
    c.ownOpen = 10;
    c.placements = [999_500, 999_900];
    c.pnl = new Decimal('-1234.56');
    c.exchangeCounts = { total: 40, algo: 3 };
    for (const s of syms) {
      c.balances.set(s.symbol.split('_')[1] as string, new Decimal('5000000000'));
      c.balances.set(s.base, D(s.q * 500, s.qs));
      c.positions.set(s.base, D(s.q * 3, s.qs));
      c.openBuy.set(s.symbol, D(s.q * 4, s.qs));
      c.openSell.set(s.symbol, D(s.q * 4, s.qs));
      c.counts.set(s.symbol, { total: 10, algo: 1, iceberg: 0 });
      c.avg.set(s.symbol, new Decimal(s.center).mul('1.000123456789'));
      c.refs.set(s.symbol, new Decimal(s.center));
      const lv = (side: number): [string, string][] => Array.from({ length: 5 }, (_, i) => [scaled(s.center * (1 + side * 0.0005 * (i + 1)), s.ps), scaled(s.q * 10, s.qs)]);
      c.books.set(s.symbol, new StaticBook(s.symbol, levels(lv(-1)), levels(lv(1))));
    }
    c.limits = {
      maxOrderNotional: new Decimal('100000000000'),
      maxOpenOrders: 100,
      maxOrderRate: { count: 50, windowMs: 1000 },
      dailyLossLimit: new Decimal('10000000'),
      maxPosition: Object.fromEntries(syms.map((s) => [s.base, D(s.q * 1000, s.qs)])),
    };
    return c;
  });
  const intents: Intent[] = [];
  const pairs = new Uint8Array(count);
  for (let n = 0; n < count; n++) {
    pairs[n] = Math.floor(rnd() * contexts.length);
    const s = syms[Math.floor(rnd() * syms.length)] as (typeof syms)[number];
    const id = `mm-${n}`;
    const k = rnd();
    if (k < 0.1) {
      intents.push({ kind: 'cancel', strategy: 'mm', intentId: id, symbol: s.symbol, clientId: `mm-${n - 1}` });
      continue;
    }
    const side = rnd() < 0.5 ? 'BUY' : 'SELL';
    const t = rnd();
    const orderType: OrderTypeName = t < 0.75 ? 'LIMIT' : t < 0.87 ? 'LIMIT_MAKER' : t < 0.9 ? 'MARKET' : t < 0.95 ? 'STOP_LOSS_LIMIT' : 'TAKE_PROFIT_LIMIT';
    const px = s.center * (1 + (side === 'BUY' ? -1 : 1) * rnd() * 0.01);
    const price = orderType === 'MARKET' ? undefined : D(px, s.ps);
    const stopPrice = orderType.endsWith('_LIMIT') ? D(px, s.ps) : undefined;
    const quantity = D(s.q * (0.5 + rnd()), s.qs);
    intents.push({ kind: 'place', strategy: 'mm', intentId: id, clientId: id, symbol: s.symbol, side, orderType, timeInForce: orderType === 'MARKET' ? undefined : 'GTC', quantity, quoteOrderQty: undefined, price, stopPrice, icebergQty: undefined, stpMode: undefined });
  }
  return { intents, contexts, pairs };
}
