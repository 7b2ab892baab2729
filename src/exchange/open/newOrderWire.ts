/**
 * Validation of POST /open/v1/orders and OCO parameters against the spec's per-type rules,
 * producing the wire parameters. Nothing here knows the symbol's filters: that is risk's job.
 */
import { randomUUID } from 'node:crypto';
import { NEW_ORDER_STP_CODES, OrderSide, OrderType, StpMode, TimeInForce, ValidationError, Decimal } from '../../core/index.js';
import { ICEBERG_ORDER_TYPES, ORDER_MANDATORY_PARAMS, PRICED_ORDER_TYPES, STOP_ORDER_TYPES } from '../../core/orderRules.js';
import type { WireParams } from '../transport/wire.js';
import type { NewOcoParams, NewOrderParams } from './params.js';
import { optPositive, positive, requiredText, text } from './validate.js';

/** Maximum clientId length (spec length column). */
export const CLIENT_ID_MAX = 50;

/**
 * A fresh client id: `k` + 32 hex digits. Alphanumeric only, since the allowed character set is
 * not shown; 33 characters fit the 50-character limit.
 */
export function generateClientId(): string {
  return `k${randomUUID().replace(/-/g, '')}`;
}

/** Validates a new order and returns its wire parameters and the clientId it will carry. */
export function newOrderWire(p: NewOrderParams): { params: WireParams; clientId: string } {
  const symbol = requiredText('symbol', p.symbol, 50);
  if (!Object.prototype.hasOwnProperty.call(OrderSide, p.side)) throw new ValidationError('side', p.side, 'must be BUY or SELL');
  if (!Object.prototype.hasOwnProperty.call(OrderType, p.type)) throw new ValidationError('type', p.type, `must be one of ${Object.keys(OrderType).join(', ')}`);
  const type = p.type;
  // MARKET has no entry in the table; its side-dependent rule is read strictly below.
  for (const f of ORDER_MANDATORY_PARAMS[type]) if (p[f] === undefined) throw new ValidationError(f, undefined, `is required for ${type} orders`);
  if (p.price !== undefined && !PRICED_ORDER_TYPES.has(type)) throw new ValidationError('price', p.price.toString(), `is not allowed for ${type} orders`);
  if (p.stopPrice !== undefined && !STOP_ORDER_TYPES.has(type)) throw new ValidationError('stopPrice', p.stopPrice.toString(), `is only for STOP_LOSS, STOP_LOSS_LIMIT, TAKE_PROFIT, TAKE_PROFIT_LIMIT`);
  if (type === 'MARKET') {
    if (p.quantity === undefined && p.quoteOrderQty === undefined) throw new ValidationError('quantity', undefined, 'MARKET orders need quantity (or quoteOrderQty for a buy)');
    if (p.quantity !== undefined && p.quoteOrderQty !== undefined) throw new ValidationError('quoteOrderQty', p.quoteOrderQty.toString(), 'send either quantity or quoteOrderQty, not both');
    if (p.quoteOrderQty !== undefined && p.side !== 'BUY') throw new ValidationError('quoteOrderQty', p.quoteOrderQty.toString(), 'is only for MARKET buys; a MARKET sell needs quantity');
  } else if (p.quoteOrderQty !== undefined) {
    throw new ValidationError('quoteOrderQty', p.quoteOrderQty.toString(), 'is only for MARKET orders');
  }
  if (p.timeInForce !== undefined && !Object.prototype.hasOwnProperty.call(TimeInForce, p.timeInForce)) throw new ValidationError('timeInForce', p.timeInForce, 'must be GTC, IOC, FOK or GTX');
  if (p.icebergQty !== undefined) {
    if (!ICEBERG_ORDER_TYPES.has(type)) throw new ValidationError('icebergQty', p.icebergQty.toString(), 'is only for LIMIT, STOP_LOSS_LIMIT, TAKE_PROFIT_LIMIT orders');
    if (p.timeInForce !== undefined && p.timeInForce !== 'GTC') throw new ValidationError('timeInForce', p.timeInForce, 'an order with icebergQty must be GTC');
  }
  let stp: number | undefined;
  if (p.selfTradePreventionMode !== undefined) {
    stp = StpMode[p.selfTradePreventionMode] as number | undefined;
    if (stp === undefined || !NEW_ORDER_STP_CODES.has(stp)) throw new ValidationError('selfTradePreventionMode', p.selfTradePreventionMode, 'must be EXPIRE_MAKER, EXPIRE_TAKER, EXPIRE_BOTH, DECREMENT or TRANSFER');
  }
  const clientId = p.clientId === undefined ? generateClientId() : requiredText('clientId', p.clientId, CLIENT_ID_MAX);
  const quantity = optPositive('quantity', p.quantity);
  const icebergQty = optPositive('icebergQty', p.icebergQty);
  if (icebergQty !== undefined && quantity !== undefined && new Decimal(icebergQty).gt(quantity)) throw new ValidationError('icebergQty', icebergQty, `must not exceed quantity ${quantity}`);
  return {
    clientId,
    params: {
      symbol,
      side: OrderSide[p.side],
      type: OrderType[type],
      // GTC is sent explicitly for iceberg orders: the rule requires it and the default is not shown.
      timeInForce: p.timeInForce !== undefined ? TimeInForce[p.timeInForce] : icebergQty !== undefined ? TimeInForce.GTC : undefined,
      quantity,
      quoteOrderQty: optPositive('quoteOrderQty', p.quoteOrderQty),
      price: optPositive('price', p.price),
      stopPrice: optPositive('stopPrice', p.stopPrice),
      icebergQty,
      selfTradePreventionMode: stp,
      clientId,
    },
  };
}

/**
 * Validates an OCO. The spec's price rule (sell: limit > last > stop; buy: limit < last < stop)
 * needs the last price, which we do not have here; the part that does not (limit vs stop) is checked.
 */
export function newOcoWire(p: NewOcoParams): { params: WireParams; listClientId: string } {
  const symbol = requiredText('symbol', p.symbol, 50);
  if (!Object.prototype.hasOwnProperty.call(OrderSide, p.side)) throw new ValidationError('side', p.side, 'must be BUY or SELL');
  const quantity = positive('quantity', p.quantity);
  const price = positive('price', p.price);
  const stopPrice = positive('stopPrice', p.stopPrice);
  const stopLimitPrice = positive('stopLimitPrice', p.stopLimitPrice);
  const lp = new Decimal(price);
  const sp = new Decimal(stopPrice);
  if (p.side === 'SELL' && !lp.gt(sp)) throw new ValidationError('price', price, `a SELL OCO needs price > stopPrice (${stopPrice})`);
  if (p.side === 'BUY' && !lp.lt(sp)) throw new ValidationError('price', price, `a BUY OCO needs price < stopPrice (${stopPrice})`);
  const listClientId = p.listClientId === undefined ? generateClientId() : requiredText('listClientId', p.listClientId, CLIENT_ID_MAX);
  return {
    listClientId,
    params: {
      symbol,
      listClientId,
      side: OrderSide[p.side],
      quantity,
      limitClientId: text('limitClientId', p.limitClientId, CLIENT_ID_MAX, true),
      price,
      stopClientId: text('stopClientId', p.stopClientId, CLIENT_ID_MAX, true),
      stopPrice,
      stopLimitPrice,
    },
  };
}
