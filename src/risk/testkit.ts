/**
 * Building blocks for risk-checker tests and benchmarks: a symbol built from wire filters, a
 * static order book and a plain mutable RiskContext. Also handy for strategy and backtest tests
 * that need a context without a running pipeline.
 */
import type { BookView, FillCost } from '../core/bookView.js';
import { Decimal, ZERO } from '../core/decimal.js';
import type { OrderSideName, OrderTypeName, StpModeName } from '../core/enums.js';
import { parseExchangeFilters, parseSymbolFilters, type WireFilter } from '../core/filters.js';
import type { BookLevel, PriceRangeRule, SymbolInfo } from '../core/types.js';
import type { TradingStateName } from '../bus/events.js';
import { compileRiskRules, type RiskRules } from './rules.js';
import type { OpenOrderCounts, RiskAccountView, RiskContext, RiskMarketView, RiskMode, UserLimits } from './types.js';

const ALL_TYPES: readonly OrderTypeName[] = ['LIMIT', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT', 'LIMIT_MAKER'];
const ALL_STP: readonly StpModeName[] = ['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT', 'TRANSFER'];

/** A SymbolInfo from wire filters, with every order type and STP mode enabled unless overridden. */
export function makeSymbol(symbol: string, filters: readonly WireFilter[], over: Partial<SymbolInfo> = {}): SymbolInfo {
  const [base = '', quote = ''] = symbol.split('_');
  return {
    type: 1,
    symbol,
    baseAsset: base,
    quoteAsset: quote,
    basePrecision: 8,
    quotePrecision: 8,
    filters: parseSymbolFilters(filters),
    orderTypes: ALL_TYPES,
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ALL_STP,
    icebergEnable: true,
    ocoEnable: true,
    spotTradingEnable: true,
    marginTradingEnable: false,
    ...over,
  };
}

/** Rules from symbols, optional wire exchange filters and PRICE_RANGE rules. */
export function makeRules(symbols: readonly SymbolInfo[], exchange: readonly WireFilter[] = [], ranges: readonly PriceRangeRule[] = []): RiskRules {
  return compileRiskRules(symbols, parseExchangeFilters(exchange), ranges);
}

/** Cumulative quantity and quote amount through each level of one side (the walk's running sums). */
interface LevelSums {
  readonly qty: readonly Decimal[];
  readonly quote: readonly Decimal[];
}

function levelSums(side: readonly BookLevel[]): LevelSums {
  const qty: Decimal[] = [];
  const quote: Decimal[] = [];
  let q = ZERO;
  let v = ZERO;
  for (const l of side) {
    q = q.plus(l.qty);
    v = v.plus(l.qty.mul(l.price));
    qty.push(q);
    quote.push(v);
  }
  return { qty, quote };
}

/** A fill estimate whose average price (a 40-digit division no risk check reads) is computed on first read. */
class LazyFill implements FillCost {
  #avg: Decimal | undefined | null = null;
  constructor(
    readonly filledQty: Decimal,
    readonly quoteQty: Decimal,
    readonly worstPrice: Decimal | undefined,
  ) {}
  get avgPrice(): Decimal | undefined {
    if (this.#avg === null) this.#avg = this.filledQty.gt(ZERO) ? this.quoteQty.div(this.filledQty) : undefined;
    return this.#avg;
  }
}

/** A fixed order book (levels best first). */
export class StaticBook implements BookView {
  readonly lastUpdateId = 1;
  /** Running sums per side, built once: the levels never change, so a fill needs one product, not a walk. */
  readonly #sums: { readonly BUY: LevelSums; readonly SELL: LevelSums };
  constructor(
    readonly symbol: string,
    readonly bids: readonly BookLevel[],
    readonly asks: readonly BookLevel[],
    public ready = true,
  ) {
    this.#sums = { BUY: levelSums(asks), SELL: levelSums(bids) };
  }
  bestBid(): BookLevel | undefined {
    return this.bids[0];
  }
  bestAsk(): BookLevel | undefined {
    return this.asks[0];
  }
  top(n: number): { bids: BookLevel[]; asks: BookLevel[] } {
    return { bids: this.bids.slice(0, n), asks: this.asks.slice(0, n) };
  }
  band(low: Decimal, high: Decimal): { bids: BookLevel[]; asks: BookLevel[] } {
    const inside = (l: BookLevel): boolean => l.price.gte(low) && l.price.lte(high);
    return { bids: this.bids.filter(inside), asks: this.asks.filter(inside) };
  }
  /** Walks are memoised per quantity object: the book is fixed, and tests ask the same sizes often. */
  readonly #memo = { BUY: new WeakMap<Decimal, FillCost>(), SELL: new WeakMap<Decimal, FillCost>() };
  costToFill(side: OrderSideName, qty: Decimal): FillCost {
    const memo = this.#memo[side];
    let r = memo.get(qty);
    if (r === undefined) {
      r = qty.gt(ZERO) ? this.#fill(side, qty) : this.#walk(side, qty);
      memo.set(qty, r);
    }
    return r;
  }
  /** Fill of a positive quantity from the running sums: the level that completes it, plus the part taken there. */
  #fill(side: OrderSideName, qty: Decimal): FillCost {
    const levels = side === 'BUY' ? this.asks : this.bids;
    const { qty: cumQty, quote: cumQuote } = this.#sums[side];
    const n = levels.length;
    for (let k = 0; k < n; k++) {
      const through = cumQty[k] as Decimal;
      if (through.lt(qty)) continue;
      const level = levels[k] as BookLevel;
      const before = k > 0 ? (cumQty[k - 1] as Decimal) : ZERO;
      const quoteBefore = k > 0 ? (cumQuote[k - 1] as Decimal) : ZERO;
      return new LazyFill(qty, quoteBefore.plus(qty.minus(before).mul(level.price)), level.price);
    }
    // The book runs out: everything it has.
    return n === 0 ? new LazyFill(ZERO, ZERO, undefined) : new LazyFill(cumQty[n - 1] as Decimal, cumQuote[n - 1] as Decimal, (levels[n - 1] as BookLevel).price);
  }
  /** The plain walk, for quantities that are not positive (what a walk does with those is its own definition). */
  #walk(side: OrderSideName, qty: Decimal): FillCost {
    return walkLevels(side === 'BUY' ? this.asks : this.bids, qty);
  }
}

/** Cost of `qty` taken level by level from `side` (best first): the textbook walk StaticBook's running sums reproduce. */
export function walkLevels(side: readonly BookLevel[], qty: Decimal): FillCost {
  let left = qty;
  let quote = ZERO;
  let worst: Decimal | undefined;
  for (const l of side) {
    if (left.lte(0)) break;
    const take = Decimal.min(left, l.qty);
    quote = quote.plus(take.mul(l.price));
    left = left.minus(take);
    worst = l.price;
  }
  const filled = qty.minus(Decimal.max(left, 0));
  return { filledQty: filled, quoteQty: quote, avgPrice: filled.gt(0) ? quote.div(filled) : undefined, worstPrice: worst };
}

/** Book levels from [price, qty] string pairs. */
export function levels(pairs: readonly (readonly [string, string])[]): BookLevel[] {
  return pairs.map(([p, q]) => ({ price: new Decimal(p), qty: new Decimal(q) }));
}

const TWO_52 = new Decimal(2).pow(52);

/** A RiskContext whose every input is a plain mutable field. */
export class StaticRiskContext implements RiskContext, RiskMarketView, RiskAccountView {
  now = 0;
  mode: RiskMode = 'reject';
  limits: UserLimits = {};
  state: TradingStateName = 'ACTIVE';
  readonly states = new Map<string, TradingStateName>();
  /** Average price by symbol (any window). */
  readonly avg = new Map<string, Decimal>();
  /** Average price by `${symbol}:${mins}` when a test needs windows to differ. */
  readonly avgByWindow = new Map<string, Decimal>();
  readonly refs = new Map<string, Decimal | null>();
  readonly books = new Map<string, BookView>();
  readonly balances = new Map<string, Decimal>();
  readonly positions = new Map<string, Decimal>();
  /** Unfilled quantity of the strategy's open orders by symbol, per side. */
  readonly openBuy = new Map<string, Decimal>();
  readonly openSell = new Map<string, Decimal>();
  readonly counts = new Map<string, OpenOrderCounts>();
  exchangeCounts = { total: 0, algo: 0 };
  ownOpen = 0;
  placements: number[] = [];
  pnl: Decimal = ZERO;
  /** Set by keepUnits(): the free balances on a grid, as an account that keeps integers answers. */
  freeUnits?: (asset: string, scale: number) => number;

  constructor(public rules: RiskRules) {}

  /**
   * Answers freeUnits from the balances: floor(free x 10^scale), exact (decimal.js: the shift by a
   * power of ten and the floor round nothing), +-Infinity from 2^52 on.
   */
  keepUnits(): this {
    this.freeUnits = (asset, scale) => {
      const f = this.free(asset).mul(new Decimal(10).pow(scale)).floor();
      return f.abs().gte(TWO_52) ? (f.isNegative() ? -Infinity : Infinity) : f.toNumber();
    };
    return this;
  }

  get market(): RiskMarketView {
    return this;
  }
  get account(): RiskAccountView {
    return this;
  }
  stateFor(symbol: string): TradingStateName {
    // Most contexts set no per-symbol state: skip the map then (this runs once per check).
    return this.states.size > 0 ? (this.states.get(symbol) ?? this.state) : this.state;
  }
  avgPrice(symbol: string, mins: number): Decimal | undefined {
    return this.avgByWindow.size > 0 ? (this.avgByWindow.get(`${symbol}:${mins}`) ?? this.avg.get(symbol)) : this.avg.get(symbol);
  }
  referencePrice(symbol: string): Decimal | null | undefined {
    return this.refs.get(symbol);
  }
  book(symbol: string): BookView | undefined {
    return this.books.get(symbol);
  }
  free(asset: string): Decimal {
    return this.balances.get(asset) ?? ZERO;
  }
  position(asset: string): Decimal {
    return this.positions.get(asset) ?? ZERO;
  }
  openQty(symbol: string, side: 'BUY' | 'SELL'): Decimal {
    return (side === 'BUY' ? this.openBuy : this.openSell).get(symbol) ?? ZERO;
  }
  symbolOpenOrders(symbol: string): OpenOrderCounts {
    return this.counts.get(symbol) ?? { total: 0, algo: 0, iceberg: 0 };
  }
  exchangeOpenOrders(): { readonly total: number; readonly algo: number } {
    return this.exchangeCounts;
  }
  strategyOpenOrders(): number {
    return this.ownOpen;
  }
  placementsSince(windowStart: number): number {
    let n = 0;
    for (const t of this.placements) if (t > windowStart) n++;
    return n;
  }
  dailyPnl(): Decimal {
    return this.pnl;
  }
}
