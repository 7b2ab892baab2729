/** Market data parsing: order book snapshots, public trades, aggregate trades, klines. */
import { ParseError, parseTradeId, type AggTrade, type BookLevel, type Kline, type KlineIntervalName, type OrderBookSnapshot, type PublicTrade } from '../../core/index.js';
import { amountValue, asArray, asObject, flag, int, intValue, listOf, optFlag } from './fields.js';

/** Parses `[price, quantity]` levels (strings on the open API, numbers on the legacy one). */
export function parseLevels(where: string, v: unknown): BookLevel[] {
  return asArray(where, v).map((lvl, i) => {
    const pair = asArray(`${where}[${i}]`, lvl);
    if (pair.length < 2) throw new ParseError(`${where}[${i}]`, lvl, 'expected [price, quantity]');
    return { price: amountValue(`${where}[${i}][0]`, pair[0]), qty: amountValue(`${where}[${i}][1]`, pair[1]) };
  });
}

/** Parses a REST depth payload `{lastUpdateId, bids, asks}`. */
export function parseOrderBook(data: unknown, where = 'depth'): OrderBookSnapshot {
  const o = asObject(where, data);
  return { lastUpdateId: int(o, 'lastUpdateId', where), bids: parseLevels(`${where}.bids`, o.bids), asks: parseLevels(`${where}.asks`, o.asks) };
}

/** Parses one public trade. */
export function parsePublicTrade(v: unknown, where = 'trade'): PublicTrade {
  const o = asObject(where, v);
  return {
    id: parseTradeId(`${where}.id`, o.id),
    price: amountValue(`${where}.price`, o.price),
    qty: amountValue(`${where}.qty`, o.qty),
    time: int(o, 'time', where),
    isBuyerMaker: flag(o, 'isBuyerMaker', where),
    // isBestMatch is missing from some market-host answers; it carries no trading meaning.
    isBestMatch: optFlag(o, 'isBestMatch', where) ?? false,
  };
}

/** Parses a trades payload (array, or `data.list`). */
export function parsePublicTrades(data: unknown): PublicTrade[] {
  return listOf('trades', data).map((t, i) => parsePublicTrade(t, `trades[${i}]`));
}

/** Parses one aggregate trade (`a p q f l T m M`). */
export function parseAggTrade(v: unknown, where = 'aggTrade'): AggTrade {
  const o = asObject(where, v);
  return {
    aggId: parseTradeId(`${where}.a`, o.a),
    price: amountValue(`${where}.p`, o.p),
    qty: amountValue(`${where}.q`, o.q),
    firstTradeId: parseTradeId(`${where}.f`, o.f),
    lastTradeId: parseTradeId(`${where}.l`, o.l),
    time: int(o, 'T', where),
    isBuyerMaker: flag(o, 'm', where),
    // `M` is absent in real answers (see the recorded fixture) and documented as "ignore".
    isBestMatch: optFlag(o, 'M', where) ?? false,
  };
}

/** Parses an aggregate trades payload (array, or `data.list`). */
export function parseAggTrades(data: unknown): AggTrade[] {
  return listOf('aggTrades', data).map((t, i) => parseAggTrade(t, `aggTrades[${i}]`));
}

/** Parses one kline array of 12 positions. */
export function parseKline(v: unknown, where = 'kline', interval?: KlineIntervalName): Kline {
  const a = asArray(where, v);
  if (a.length < 11) throw new ParseError(where, v, 'expected a kline array of 12 positions');
  return {
    openTime: intValue(`${where}[0]`, a[0]),
    open: amountValue(`${where}[1]`, a[1]),
    high: amountValue(`${where}[2]`, a[2]),
    low: amountValue(`${where}[3]`, a[3]),
    close: amountValue(`${where}[4]`, a[4]),
    volume: amountValue(`${where}[5]`, a[5]),
    closeTime: intValue(`${where}[6]`, a[6]),
    quoteVolume: amountValue(`${where}[7]`, a[7]),
    trades: intValue(`${where}[8]`, a[8]),
    takerBuyBaseVolume: amountValue(`${where}[9]`, a[9]),
    takerBuyQuoteVolume: amountValue(`${where}[10]`, a[10]),
    ...(interval ? { interval } : {}),
  };
}

/** Parses a klines payload (array of arrays, or `data.list`). */
export function parseKlines(data: unknown, interval?: KlineIntervalName): Kline[] {
  return listOf('klines', data).map((k, i) => parseKline(k, `klines[${i}]`, interval));
}
