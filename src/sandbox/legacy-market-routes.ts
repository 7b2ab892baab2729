/** The public market routes of the legacy interface: rates, tickers and the order book. */
import { fail, num, ok, type LegacyDeps, type LegacyRoute } from './legacy-kit.js';
import type { LegacyView } from './legacy-view.js';

const PAGE_SIZE = 100;

/** POST /v1/rates, GET /v1/rates/ticker, GET /v1/rates/tickers, GET /v1/orderbook/{pair}. */
export function legacyMarketRoutes(deps: LegacyDeps, view: LegacyView): LegacyRoute[] {
  const { state } = deps;
  const { pair, symbolByPair, ticker } = view;
  return [
    {
      method: 'POST',
      path: '/v1/rates',
      auth: false,
      handle: () =>
        ok(
          'get_rates_success',
          [...state.symbols.values()].map((s) => {
            const b = state.engine.bestBidAsk(s.info.symbol);
            return { currencyPair: pair(s), buy: b.askPrice ? num(b.askPrice) : 0, sell: b.bidPrice ? num(b.bidPrice) : 0 };
          }),
        ),
    },
    {
      method: 'GET',
      path: '/v1/rates/ticker',
      auth: false,
      handle: (ctx, _a, _p, now) => {
        const s = symbolByPair(ctx.params.get('currencyPair'));
        if (!s) fail(400, 'invalid_parameter', 'unknown currencyPair');
        const type = ctx.params.get('type') ?? 'days';
        if (type !== 'hours' && type !== 'days') fail(400, 'invalid_parameter', 'type must be hours or days');
        return ok('get_ticker_success', ticker(s, now));
      },
    },
    {
      method: 'GET',
      path: '/v1/rates/tickers',
      auth: false,
      handle: (_c, _a, _p, now) => ok('get_tickers_success', [...state.symbols.values()].map((s) => ticker(s, now))),
    },
    {
      method: 'GET',
      path: '/v1/orderbook/',
      auth: false,
      handle: (ctx, _a, _p, now) => {
        const s = symbolByPair(ctx.path.slice('/v1/orderbook/'.length));
        if (!s) fail(404, 'not_found', 'unknown currencyPair');
        const pageRaw = ctx.params.get('page') ?? '0';
        if (!/^\d{1,6}$/.test(pageRaw)) fail(400, 'invalid_parameter', 'page must be a non-negative integer');
        const page = Number(pageRaw);
        const book = state.engine.depth(s.info.symbol, (page + 1) * PAGE_SIZE);
        const cut = (l: typeof book.bids): number[][] => l.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map((x) => [num(x.price), num(x.qty)]);
        return { status: 200, body: { bids: cut(book.bids), asks: cut(book.asks), timestamp: now } };
      },
    },
  ];
}
