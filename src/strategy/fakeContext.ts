/**
 * A minimal in-memory StrategyContext for unit tests of strategies (`import { fakeContext } from
 * 'kancil/testing'`): records intents and log lines, keeps a settable book, clock, positions,
 * open orders and symbol filters. Not used at run time.
 */
import type { BookView } from '../core/bookView.js';
import { Decimal, ZERO } from '../core/decimal.js';
import type { BookLevel } from '../core/types.js';
import type { SymbolFilters } from '../core/filters.js';
import { plotPane, plotSeries, plotValue } from './plotArgs.js';
import { symbolRules } from './symbolRules.js';
import type { OwnOrderView, PlaceRequest, StrategyContext } from './types.js';

/** A recorded intent. */
export type RecordedIntent = { kind: 'place'; clientId: string; req: PlaceRequest } | { kind: 'cancel'; symbol: string; clientId: string } | { kind: 'cancelAll'; symbol: string | undefined };

/** A fixed book with one level per side (enough for quoting tests). */
export function fixedBook(symbol: string, bid: string, ask: string, ready = true): BookView {
  const b: BookLevel = { price: new Decimal(bid), qty: new Decimal(1) };
  const a: BookLevel = { price: new Decimal(ask), qty: new Decimal(1) };
  return {
    symbol,
    ready,
    lastUpdateId: 1,
    bestBid: () => b,
    bestAsk: () => a,
    top: () => ({ bids: [b], asks: [a] }),
    band: () => ({ bids: [b], asks: [a] }),
    costToFill: () => ({ filledQty: ZERO, quoteQty: ZERO, avgPrice: undefined, worstPrice: undefined }),
  };
}

/** The fake context plus handles to drive it. */
export interface FakeContext<P> extends StrategyContext<P> {
  readonly intents: RecordedIntent[];
  now: number;
  books: Map<string, BookView>;
  positions: Map<string, Decimal>;
  orders: OwnOrderView[];
  /** Filters by symbol that `rules()` reads (none: rules that round nothing). */
  filters: Map<string, SymbolFilters>;
  /** What the strategy logged, level and line. */
  readonly logged: { level: string; obj: object | string; msg?: string }[];
  /** What the strategy plotted. */
  readonly plotted: { series: string; value: number; pane?: string }[];
}

/** Builds a fake context for `params` trading `symbols`. */
export function fakeContext<P>(params: P, symbols: readonly string[] = ['BTC_USDT']): FakeContext<P> {
  let seq = 0;
  const ctx: FakeContext<P> = {
    name: 'test',
    params,
    symbols,
    intents: [],
    now: 0,
    books: new Map(),
    positions: new Map(),
    orders: [],
    filters: new Map(),
    logged: [],
    plotted: [],
    clock: { now: () => ctx.now },
    log: {
      info: (obj, msg) => void ctx.logged.push({ level: 'info', obj, msg }),
      warn: (obj, msg) => void ctx.logged.push({ level: 'warn', obj, msg }),
      error: (obj, msg) => void ctx.logged.push({ level: 'error', obj, msg }),
      debug: (obj, msg) => void ctx.logged.push({ level: 'debug', obj, msg }),
    },
    rules: (s) => symbolRules(s, ctx.filters.get(s)),
    plot: (series, value, options) => {
      const [name, v, pane] = [plotSeries(series), plotValue(value), plotPane(options)];
      ctx.plotted.push(pane === undefined ? { series: name, value: v } : { series: name, value: v, pane });
    },
    book: (s) => ctx.books.get(s),
    openOrders: (s) => ctx.orders.filter((o) => s === undefined || o.symbol === s),
    balance: () => ({ free: new Decimal(1_000_000), locked: ZERO }),
    position: (asset) => ctx.positions.get(asset) ?? ZERO,
    place: (req) => {
      const clientId = req.clientId ?? `c${++seq}`;
      ctx.intents.push({ kind: 'place', clientId, req });
      return clientId;
    },
    cancel: (symbol, clientId) => void ctx.intents.push({ kind: 'cancel', symbol, clientId }),
    cancelAll: (symbol) => void ctx.intents.push({ kind: 'cancelAll', symbol }),
  };
  return ctx;
}

/** An open order view for tests. */
export function openOrder(clientId: string, side: 'BUY' | 'SELL', price: string, qty: string, symbol = 'BTC_USDT'): OwnOrderView {
  return { clientId, orderId: clientId, symbol, side, orderType: 'LIMIT_MAKER', state: 'NEW', price: new Decimal(price), quantity: new Decimal(qty), cumQty: ZERO };
}
