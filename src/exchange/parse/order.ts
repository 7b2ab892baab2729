/** Order and OCO parsing: fields arrive as strings or numbers, ids as strings or integers. */
import {
  ExpiryReason,
  OrderSide,
  OrderStatus,
  OrderType,
  SymbolType,
  TimeInForce,
  ZERO,
  type Decimal,
  type Order,
  type SymbolTypeCode,
} from '../../core/index.js';
import { asArray, asObject, enumName, id, int, optAmount, optFlag, optId, optStr, orderAmountValue, str, type WireObject } from './fields.js';
import type { OcoOrderList } from './records.js';

function dec(o: WireObject, key: string, where: string): Decimal {
  // Absent amounts (e.g. stopPrice of a LIMIT order) mean zero on this interface.
  return optAmount(o, key, where, orderAmountValue) ?? ZERO;
}

/** Parses an order object of any REST response (new, detail, cancel, list, OCO legs). */
export function parseOrder(v: unknown, where = 'order'): Order {
  const o = asObject(where, v);
  const symbolType = o.symbolType === undefined || o.symbolType === null ? undefined : (SymbolType[enumName(SymbolType, `${where}.symbolType`, o.symbolType)] as SymbolTypeCode);
  // The new-order response spells the match-engine ids borderId/borderListId.
  const bOrderId = optId(o, 'bOrderId', where) ?? optId(o, 'borderId', where);
  const bOrderListId = optId(o, 'bOrderListId', where) ?? optId(o, 'borderListId', where);
  const tif = o.timeInForce;
  const isWorking = optFlag(o, 'isWorking', where);
  const expiry = o.expiryReason;
  const taxFee = optAmount(o, 'taxFee', where);
  const taxFeeAsset = optStr(o, 'taxFeeAsset', where);
  return {
    orderId: id(o, 'orderId', where),
    clientId: str(o, 'clientId', where),
    symbol: str(o, 'symbol', where, false),
    ...(symbolType !== undefined ? { symbolType } : {}),
    side: enumName(OrderSide, `${where}.side`, o.side),
    type: enumName(OrderType, `${where}.type`, o.type),
    ...(tif !== undefined && tif !== null ? { timeInForce: enumName(TimeInForce, `${where}.timeInForce`, tif) } : {}),
    status: enumName(OrderStatus, `${where}.status`, o.status),
    price: dec(o, 'price', where),
    origQty: dec(o, 'origQty', where),
    origQuoteQty: dec(o, 'origQuoteQty', where),
    executedQty: dec(o, 'executedQty', where),
    executedPrice: dec(o, 'executedPrice', where),
    executedQuoteQty: dec(o, 'executedQuoteQty', where),
    stopPrice: dec(o, 'stopPrice', where),
    icebergQty: dec(o, 'icebergQty', where),
    ...(bOrderId !== undefined ? { bOrderId } : {}),
    ...(bOrderListId !== undefined ? { bOrderListId } : {}),
    ...(isWorking !== undefined ? { isWorking } : {}),
    createTime: int(o, 'createTime', where),
    ...(expiry !== undefined && expiry !== null && expiry !== '' ? { expiryReason: enumName(ExpiryReason, `${where}.expiryReason`, expiry) } : {}),
    ...(taxFee !== undefined ? { taxFee } : {}),
    ...(taxFeeAsset !== undefined ? { taxFeeAsset } : {}),
  };
}

/** Parses an order list payload (`data.list`). */
export function parseOrders(data: unknown, where = 'orders'): Order[] {
  const o = Array.isArray(data) ? data : asArray(`${where}.list`, asObject(where, data).list);
  return o.map((x, i) => parseOrder(x, `${where}[${i}]`));
}

/** Parses an OCO order list. */
export function parseOcoOrderList(v: unknown, where = 'oco'): OcoOrderList {
  const o = asObject(where, v);
  const symbolType = o.symbolType === undefined || o.symbolType === null ? undefined : (SymbolType[enumName(SymbolType, `${where}.symbolType`, o.symbolType)] as SymbolTypeCode);
  return {
    bOrderListId: id(o, 'bOrderListId', where),
    listClientId: str(o, 'listClientId', where),
    symbol: str(o, 'symbol', where, false),
    ...(symbolType !== undefined ? { symbolType } : {}),
    contingencyType: str(o, 'contingencyType', where),
    listStatusType: str(o, 'listStatusType', where),
    listOrderStatus: str(o, 'listOrderStatus', where),
    createTime: int(o, 'createTime', where),
    orders: asArray(`${where}.orders`, o.orders).map((x, i) => parseOrder(x, `${where}.orders[${i}]`)),
  };
}
