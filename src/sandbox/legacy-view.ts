/**
 * How the legacy interface names markets and shows orders and tickers: pairs are base+quote in
 * lower case (btcidr), `currency` is the base asset of a <CUR>_IDR market, order status is active
 * (NEW, PARTIALLY_FILLED), fulfilled (FILLED) or cancelled (others).
 */
import type { SimOrder } from '../sim/index.js';
import type { SandboxSymbol } from './config.js';
import type { ExchangeState } from './exchange-state.js';
import { iso, num } from './legacy-kit.js';

/** The legacy names and shapes over one exchange state. */
export interface LegacyView {
  pair(s: SandboxSymbol): string;
  symbolByPair(p: unknown): SandboxSymbol | undefined;
  symbolByCurrency(c: unknown): SandboxSymbol | undefined;
  /** An order as an entry of the active-order list, or (detail) as the order detail. */
  entry(o: SimOrder, detail: boolean): Record<string, unknown>;
  ticker(s: SandboxSymbol, now: number): Record<string, unknown>;
}

/** The legacy view of `state`. */
export function legacyView(state: ExchangeState): LegacyView {
  const pair = (s: SandboxSymbol): string => `${s.info.baseAsset}${s.info.quoteAsset}`.toLowerCase();
  const symbolByPair = (p: unknown): SandboxSymbol | undefined => (typeof p === 'string' ? [...state.symbols.values()].find((s) => pair(s) === p.toLowerCase()) : undefined);
  // `currency` is the lower-case code (spec), so 'BTC' names no market.
  const symbolByCurrency = (c: unknown): SandboxSymbol | undefined => (typeof c === 'string' && c === c.toLowerCase() ? state.symbols.get(`${c.toUpperCase()}_IDR`) : undefined);

  const legacyStatus = (o: SimOrder): string => (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED' ? 'active' : o.status === 'FILLED' ? 'fulfilled' : 'cancelled');
  const entry = (o: SimOrder, detail: boolean): Record<string, unknown> => {
    const s = state.symbols.get(o.symbol) as SandboxSymbol;
    const e: Record<string, unknown> = {
      orderId: Number(o.orderId),
      type: o.type === 'MARKET' ? 'market' : 'limit',
      side: o.side === 'BUY' ? 'buy' : 'sell',
      currencyPair: pair(s).toUpperCase(),
      quantity: num(o.origQty),
      availableQuantity: num(o.origQty.minus(o.executedQty)),
      postOnly: o.type === 'LIMIT_MAKER' || o.timeInForce === 'GTX',
      price: num(o.price),
    };
    if (detail) e.status = legacyStatus(o);
    else {
      e.Status = legacyStatus(o);
      e.Match = null;
    }
    e.dateTime = iso(o.createTime);
    return e;
  };
  const ticker = (s: SandboxSymbol, now: number): Record<string, unknown> => {
    const t = state.market.miniTicker(s.info.symbol, now);
    const b = state.engine.bestBidAsk(s.info.symbol);
    return {
      Name: pair(s).toUpperCase(),
      Close: t ? Number(t.c) : 0,
      Low: t ? Number(t.l) : 0,
      High: t ? Number(t.h) : 0,
      Open: t ? Number(t.o) : 0,
      Volume: t ? Number(t.v) : 0,
      Buy: b.bidPrice ? num(b.bidPrice) : 0,
      Sell: b.askPrice ? num(b.askPrice) : 0,
      DateTime: iso(now).slice(0, 10),
    };
  };
  return { pair, symbolByPair, symbolByCurrency, entry, ticker };
}
