/**
 * Adapts the legacy /v1 client to the router's {@link LegacyOrderPort}: BASE_QUOTE symbols become
 * lower-case currency codes (BTC_IDR -> btc) and pairs (BTCIDR -> BTC_IDR), sides become
 * buy/sell, numeric order ids become strings.
 */
import type { LegacyClient } from '../exchange/legacy/LegacyClient.js';
import type { LegacyOrder } from '../exchange/parse/legacy.js';
import { ParseError, ValidationError } from '../core/errors.js';
import { splitSymbol } from '../core/symbols.js';
import type { LegacyCreate, LegacyOrderPort, LegacyOrderView } from './ports.js';

/** The legacy client methods the adapter uses. */
export type LegacyOrderClient = Pick<LegacyClient, 'createOrder' | 'cancelOrder' | 'cancelOrders' | 'cancelAllOrders' | 'activeOrders' | 'getOrder'>;

/** `BTC_IDR` -> `btc`. Refuses non-IDR pairs: /v1 quotes everything in rupiah. */
export function legacyCurrency(symbol: string): string {
  const { base, quote } = splitSymbol(symbol);
  if (quote !== 'IDR') throw new ValidationError('symbol', symbol, 'the legacy interface trades IDR pairs only');
  return base.toLowerCase();
}

/** `BTCIDR` (legacy currencyPair) -> `BTC_IDR`. */
export function symbolOfPair(pair: string): string {
  const p = pair.toUpperCase();
  return p.endsWith('IDR') && p.length > 3 ? `${p.slice(0, -3)}_IDR` : p;
}

function orderIdNumber(id: string): number {
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n < 0) throw new ValidationError('orderId', id, 'the legacy interface needs an integer order id');
  return n;
}

/**
 * /v1 writes sides and types in lower case (buy/sell, limit/market). Any other word is refused
 * rather than guessed: read as BUY or LIMIT, an order could be matched to an UNKNOWN order of ours
 * with the opposite side, and the router would track the wrong order.
 */
function word<T extends string>(field: string, v: string, words: Readonly<Record<string, T>>): T {
  const w = words[v.toLowerCase()];
  if (w === undefined) throw new ParseError(`legacy order.${field}`, v, `expected one of ${Object.keys(words).join(', ')}`);
  return w;
}

const SIDES = { buy: 'BUY', sell: 'SELL' } as const;
const TYPES = { limit: 'LIMIT', market: 'MARKET' } as const;

function view(o: LegacyOrder): LegacyOrderView {
  return {
    orderId: String(o.orderId),
    symbol: symbolOfPair(o.currencyPair),
    side: word('side', o.side, SIDES),
    type: word('type', o.type, TYPES),
    price: o.price,
    quantity: o.quantity,
    availableQuantity: o.availableQuantity,
    status: o.status,
    time: o.time,
  };
}

/** Wraps a legacy client as the router's fallback port. */
export function legacyPort(client: LegacyOrderClient): LegacyOrderPort {
  return {
    async createOrder(p: LegacyCreate) {
      const r = await client.createOrder({
        currency: legacyCurrency(p.symbol),
        side: p.side === 'BUY' ? 'buy' : 'sell',
        type: p.type === 'MARKET' ? 'market' : 'limit',
        quantity: p.quantity,
        ...(p.price !== undefined ? { price: p.price } : {}),
      });
      return { orderId: r.orderId };
    },
    async cancelOrder(orderId) {
      await client.cancelOrder(orderIdNumber(orderId));
    },
    async cancelOrders(orderIds) {
      await client.cancelOrders(orderIds.map(orderIdNumber));
    },
    async cancelAllOrders() {
      await client.cancelAllOrders();
    },
    async activeOrders() {
      return (await client.activeOrders()).map(view);
    },
    async getOrder(orderId) {
      return view(await client.getOrder(orderIdNumber(orderId)));
    },
  };
}
