/**
 * Market-data routes. Which host serves which symbol type is the spec's routing table:
 * {market_url}/api/v3/* for type 1 (symbol without underscore), {depth_url}/api/v1/* for
 * type 3, and {base_url}/open/v1/market/trades for the other types. A symbol asked for on
 * the wrong host is answered like an unknown symbol, which is what a misrouted client meets
 * on the real exchange.
 *
 * Decisions where the spec is silent or contradicts itself:
 * - depth `limit`: the spec lists 5..500 as valid but its own book procedure asks for 1000, and
 *   states a maximum of 5000; the sandbox accepts 5, 10, 20, 50, 100, 500, 1000 and 5000.
 * - type 2 symbols: only /open/v1/market/trades is listed for "other" types; the sandbox also
 *   serves /open/v1/market/depth, /aggTrades and /klines on the main host for type 2 (where the
 *   client sends them). Not for type 3: the spec says those three "moved to the host {depth_url}",
 *   so the main host answers a type 3 symbol there like an unknown one.
 * - the type 1 market host ({market_url}/api/v3) answers market data without the open envelope:
 *   the spec's tables say `data`, but recorded real answers of that host (BTC_IDR depth and trades
 *   in ../shared/data/tokocrypto_idr_ccxt_static_excerpt.json) are bare; the depth host and the
 *   main host wrap them in the envelope, as their recorded answers do. Errors are enveloped everywhere.
 * - GET /api/v3/referencePrice takes `symbol` and answers the bare object of the spec's
 *   Reference price resource (no envelope, like executionRules on the same host). Prices set
 *   by the sandbox operator are EXTERNAL with externalCalculationId 0 ("set manually").
 */
import { isKlineInterval, type SymbolTypeCode, marketSymbol } from '../core/index.js';
import type { SandboxSymbol } from './config.js';
import type { ExchangeState } from './exchange-state.js';
import type { RequestContext } from './http-host.js';
import type { OpenRoute, RouteResult } from './open-routes.js';
import { ApiCode, badParam, optInt, optTimeRange, reqString } from './params.js';

const DEPTH_LIMITS = new Set([5, 10, 20, 50, 100, 500, 1000, 5000]);

/** Weight of a depth request by limit (conventional scale; the spec does not give it). */
function depthWeight(ctx: RequestContext): number {
  const l = Number(ctx.params.get('limit') ?? 100);
  return l <= 100 ? 1 : l <= 500 ? 5 : l <= 1000 ? 10 : 50;
}

/** Reference prices the operator set, by symbol (null: none). */
export type ReferencePrices = Map<string, { price: string | null; time: number }>;

/**
 * Market-data routes for one host: `prefix` is /api/v3, /api/v1 or /open/v1/market. `types` are
 * the symbol types of depth, aggTrades and klines there; `tradeTypes` those of trades (default the same).
 */
export function marketRoutes(
  state: ExchangeState,
  prefix: string,
  types: readonly SymbolTypeCode[],
  spellWithUnderscore: boolean,
  bare: boolean,
  tradeTypes: readonly SymbolTypeCode[] = types,
): OpenRoute[] {
  const symOf = (ctx: RequestContext, served: readonly SymbolTypeCode[]): SandboxSymbol => {
    const name = reqString(ctx, 'symbol');
    const s = spellWithUnderscore ? [...state.symbols.values()].find((x) => x.info.symbol === name && served.includes(x.info.type)) : state.symbolByMarketName(name, served);
    if (!s) badParam(ctx, ApiCode.BAD_SYMBOL, 'Invalid symbol.');
    return s;
  };
  const sym = (ctx: RequestContext): SandboxSymbol => symOf(ctx, types);
  const route = (path: string, weight: (ctx: RequestContext) => number, handle: (ctx: RequestContext, now: number) => RouteResult): OpenRoute => ({
    method: 'GET',
    path: `${prefix}${path}`,
    security: 'NONE',
    style: 'msg',
    weight,
    handle: ({ ctx, now }) => {
      const r = handle(ctx, now);
      return bare && 'data' in r ? { bare: r.data } : r;
    },
  });
  const depth = route('/depth', depthWeight, (ctx) => {
    const s = sym(ctx);
    const limit = optInt(ctx, 'limit', 1, 5000) ?? 100;
    if (!DEPTH_LIMITS.has(limit)) badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${limit} for parameter 'limit'; allowed values are 5, 10, 20, 50, 100, 500, 1000, 5000.`);
    const book = state.engine.depth(s.info.symbol, limit);
    return { data: { lastUpdateId: book.lastUpdateId, bids: book.bids.map((l) => [l.price.toFixed(), l.qty.toFixed()]), asks: book.asks.map((l) => [l.price.toFixed(), l.qty.toFixed()]) } };
  });
  const trades = route('/trades', () => 5, (ctx) => {
    const s = symOf(ctx, tradeTypes);
    const fromId = optInt(ctx, 'fromId', 0);
    const limit = optInt(ctx, 'limit', 1, 1000) ?? 500;
    // Recent trades returns up to the last 500 trades, whatever the limit.
    const list = state.market.trades(s.info.symbol, fromId === undefined ? Math.min(limit, 500) : limit, fromId);
    return { data: list.map((t) => ({ id: t.id, price: t.price, qty: t.qty, time: t.time, isBuyerMaker: t.isBuyerMaker, isBestMatch: true })) };
  });
  const aggTrades = route('/aggTrades', one, (ctx) => {
    const s = sym(ctx);
    const q: { fromId?: number; startTime?: number; endTime?: number; limit: number } = { limit: optInt(ctx, 'limit', 1, 1000) ?? 500 };
    const fromId = optInt(ctx, 'fromId', 0);
    if (fromId !== undefined) q.fromId = fromId;
    optTimeRange(ctx, q);
    return { data: state.market.aggTrades(s.info.symbol, q).map((a) => ({ a: a.a, p: a.p, q: a.q, f: a.f, l: a.l, T: a.T, m: a.m, M: a.M })) };
  });
  const klines = route('/klines', one, (ctx) => {
    const s = sym(ctx);
    const interval = reqString(ctx, 'interval', 4);
    if (!isKlineInterval(interval)) badParam(ctx, ApiCode.INVALID_PARAMETER, 'Invalid interval.');
    const q: { startTime?: number; endTime?: number; limit: number } = { limit: optInt(ctx, 'limit', 1, 1000) ?? 500 };
    optTimeRange(ctx, q);
    const list = state.market.klines(s.info.symbol, interval, q);
    return { data: list.map((k) => [k.t, k.o, k.h, k.l, k.c, k.v, k.T, k.q, k.n, k.V, k.Q, '0']) };
  });
  return [depth, trades, aggTrades, klines];
}

const one = (): number => 1;

/** Routes only the market host has: executionRules and referencePrice. */
export function marketHostExtras(state: ExchangeState, refs: ReferencePrices): OpenRoute[] {
  const type1 = (): SandboxSymbol[] => [...state.symbols.values()].filter((s) => s.info.type === 1);
  const spelled = (s: SandboxSymbol): string => marketSymbol(s.info.symbol, s.info.type);
  const parseSymbols = (ctx: RequestContext, raw: string): string[] => {
    try {
      const v: unknown = raw.trim().startsWith('[') ? JSON.parse(raw) : raw.split(',');
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    } catch {
      // fall through to the error below
    }
    return badParam(ctx, ApiCode.ILLEGAL_CHARS, "Illegal characters found in parameter 'symbols'.");
  };
  return [
    {
      method: 'GET',
      path: '/api/v3/executionRules',
      security: 'NONE',
      style: 'msg',
      weight: (ctx) => {
        if (ctx.params.get('symbol')) return 2;
        const list = ctx.params.get('symbols');
        if (list) return Math.min(40, 2 * Math.max(1, list.split(',').length));
        return 40;
      },
      handle: ({ ctx }) => {
        const given = ['symbol', 'symbols', 'symbolStatus'].filter((k) => ctx.params.get(k));
        if (given.length > 1) badParam(ctx, ApiCode.INVALID_PARAMETER, 'Only one of symbol, symbols and symbolStatus may be sent.');
        let chosen = type1();
        const one = ctx.params.get('symbol');
        const many = ctx.params.get('symbols');
        const status = ctx.params.get('symbolStatus');
        if (one) {
          chosen = chosen.filter((s) => spelled(s) === one);
          if (chosen.length === 0) badParam(ctx, ApiCode.BAD_SYMBOL, 'Invalid symbol.');
        } else if (many) {
          const names = parseSymbols(ctx, many);
          chosen = chosen.filter((s) => names.includes(spelled(s)));
        } else if (status) {
          if (!['TRADING', 'HALT', 'BREAK'].includes(status)) badParam(ctx, ApiCode.INVALID_PARAMETER, `Invalid value ${status} for parameter 'symbolStatus'.`);
          chosen = chosen.filter((s) => (status === 'TRADING') === s.info.spotTradingEnable);
        }
        const symbolRules = chosen.map((s) => {
          const pr = s.priceRange;
          const rules: Record<string, string>[] = [];
          if (pr) {
            const r: Record<string, string> = { ruleType: 'PRICE_RANGE' };
            if (pr.bidLimitMultUp) r.bidLimitMultUp = pr.bidLimitMultUp.toFixed();
            if (pr.bidLimitMultDown) r.bidLimitMultDown = pr.bidLimitMultDown.toFixed();
            if (pr.askLimitMultUp) r.askLimitMultUp = pr.askLimitMultUp.toFixed();
            if (pr.askLimitMultDown) r.askLimitMultDown = pr.askLimitMultDown.toFixed();
            rules.push(r);
          }
          return { symbol: spelled(s), rules };
        });
        return { bare: { symbolRules } };
      },
    },
    {
      method: 'GET',
      path: '/api/v3/referencePrice',
      security: 'NONE',
      style: 'msg',
      weight: () => 2,
      handle: ({ ctx, now }) => {
        const name = reqString(ctx, 'symbol');
        const s = state.symbolByMarketName(name, [1]);
        if (!s) badParam(ctx, ApiCode.BAD_SYMBOL, 'Invalid symbol.');
        const ref = refs.get(s.info.symbol);
        const price = ref ? ref.price : null;
        return { bare: { symbol: name, referencePrice: price, timestamp: ref?.time ?? now, calculationType: 'EXTERNAL', externalCalculationId: 0 } };
      },
    },
  ];
}
