/**
 * User data payloads (listen-key stream and listen-token subscriptions) parsed to typed events
 * with exact decimals. Enumerations arrive as names per the spec; numeric codes are accepted too
 * because both spellings exist on this exchange's REST side.
 */
import {
  ExecutionType,
  type ExecutionTypeName,
  ExpiryReason,
  type ExpiryReasonName,
  OrderSideName,
  type OrderSideName as OrderSide,
  OrderStatusName,
  type OrderStatusName as OrderStatus,
  OrderTypeName,
  type OrderTypeName as OrderType,
  TimeInForceName,
  type TimeInForceName as TimeInForce,
} from '../../core/enums.js';
import { OrderSide as SideCodes, OrderStatus as StatusCodes, OrderType as TypeCodes, TimeInForce as TifCodes } from '../../core/enums.js';
import { ParseError } from '../../core/errors.js';
import { parseOptionalTradeId } from '../../core/tradeId.js';
import type { AccountPositionEvent, ExecutionReportEvent, StreamTerminatedEvent, UserDataEvent } from '../../core/marketEvents.js';
import { type Obj, dec, int, obj, str } from './wire-fields.js';
import { orderAmountValue } from '../parse/fields.js';

/** outboundAccountPosition with every field the spec lists (the core type holds the balances). */
export interface AccountPositionEventFull extends AccountPositionEvent {
  /** m, t, b, s: commission rates in bips. */
  readonly makerCommission: number | undefined;
  readonly takerCommission: number | undefined;
  readonly buyerCommission: number | undefined;
  readonly sellerCommission: number | undefined;
  /** T, W, D. */
  readonly canTrade: boolean | undefined;
  readonly canWithdraw: boolean | undefined;
  readonly canDeposit: boolean | undefined;
}

/** A `listenKeyExpired`-style notice: the stream is over and must be re-created. */
export interface ListenKeyExpiredNotice {
  readonly type: 'listenKeyExpired';
  readonly E: number;
}

/** Result of parsing one user payload. */
export type UserPayload = UserDataEvent | ListenKeyExpiredNotice;

function enumName<N extends string>(field: string, v: unknown, names: Readonly<Record<string, N>>, codes: Readonly<Record<string, number | string>>): N {
  if (typeof v === 'string' && Object.prototype.hasOwnProperty.call(codes, v)) return v as N;
  if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v))) {
    const n = names[String(v)];
    if (n !== undefined) return n;
  }
  throw new ParseError(field, v, 'unknown enumeration value');
}

function flag(field: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === '1' || v === 'true') return true;
  if (v === 0 || v === '0' || v === 'false') return false;
  throw new ParseError(field, v, 'expected a boolean');
}

function optFlag(field: string, v: unknown): boolean | undefined {
  return v === undefined || v === null ? undefined : flag(field, v);
}

function optNum(field: string, v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new ParseError(field, v, 'expected a number');
  return n;
}

function idString(field: string, v: unknown): string {
  if (typeof v === 'string' && v.length > 0) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  throw new ParseError(field, v, 'expected an id');
}

/** Parses an executionReport payload. */
export function parseExecutionReport(d: Obj): ExecutionReportEvent {
  const x = str('x', d.x);
  if (!Object.prototype.hasOwnProperty.call(ExecutionType, x)) throw new ParseError('x', x, 'unknown execution type');
  const eR = d.eR;
  let expiryReason: ExpiryReasonName | undefined;
  if (eR !== undefined && eR !== null && eR !== '') {
    if (typeof eR !== 'string' || !Object.prototype.hasOwnProperty.call(ExpiryReason, eR)) throw new ParseError('eR', eR, 'unknown expiry reason');
    expiryReason = eR as ExpiryReasonName;
  }
  return {
    type: 'executionReport',
    E: int('E', d.E),
    symbol: str('s', d.s),
    clientId: str('c', d.c),
    side: enumName<OrderSide>('S', d.S, OrderSideName, SideCodes),
    orderType: enumName<OrderType>('o', d.o, OrderTypeName, TypeCodes),
    timeInForce: d.f === undefined || d.f === null || d.f === '' ? undefined : enumName<TimeInForce>('f', d.f, TimeInForceName, TifCodes),
    quantity: orderAmountValue('q', d.q),
    price: orderAmountValue('p', d.p),
    stopPrice: orderAmountValue('P', d.P ?? '0'),
    icebergQty: orderAmountValue('F', d.F ?? '0'),
    origClientId: d.C === undefined || d.C === null ? '' : str('C', d.C),
    executionType: x as ExecutionTypeName,
    status: enumName<OrderStatus>('X', d.X, OrderStatusName, StatusCodes),
    rejectReason: d.r === undefined || d.r === null ? 'NONE' : String(d.r),
    orderId: idString('i', d.i),
    lastQty: orderAmountValue('l', d.l),
    cumQty: orderAmountValue('z', d.z),
    lastPrice: orderAmountValue('L', d.L),
    commission: orderAmountValue('n', d.n ?? '0'),
    commissionAsset: d.N === undefined || d.N === null ? null : str('N', d.N),
    transactionTime: int('T', d.T),
    tradeId: parseOptionalTradeId('t', d.t),
    isWorking: flag('w', d.w),
    isMaker: flag('m', d.m),
    orderCreationTime: int('O', d.O),
    cumQuoteQty: orderAmountValue('Z', d.Z),
    lastQuoteQty: orderAmountValue('Y', d.Y ?? '0'),
    expiryReason,
  };
}

/** Parses an outboundAccountPosition payload. */
export function parseAccountPosition(d: Obj): AccountPositionEventFull {
  const B = d.B;
  if (!Array.isArray(B)) throw new ParseError('B', B, 'expected an array of balances');
  return {
    type: 'accountPosition',
    E: int('E', d.E),
    lastUpdateTime: int('u', d.u),
    balances: B.map((b, i) => {
      const o = obj(`B[${i}]`, b);
      return { asset: str(`B[${i}].a`, o.a), free: dec(`B[${i}].f`, o.f), locked: dec(`B[${i}].l`, o.l) };
    }),
    makerCommission: optNum('m', d.m),
    takerCommission: optNum('t', d.t),
    buyerCommission: optNum('b', d.b),
    sellerCommission: optNum('s', d.s),
    canTrade: optFlag('T', d.T),
    canWithdraw: optFlag('W', d.W),
    canDeposit: optFlag('D', d.D),
  };
}

/** Parses a user payload. `subscriptionId` is given for WebSocket API events (`{subscriptionId, event}`). */
export function parseUserPayload(data: unknown, subscriptionId?: number): UserPayload {
  const d = obj('event', data);
  switch (d.e) {
    case 'executionReport':
      return parseExecutionReport(d);
    case 'outboundAccountPosition':
      return parseAccountPosition(d);
    case 'eventStreamTerminated':
      return { type: 'streamTerminated', E: int('E', d.E), subscriptionId: subscriptionId ?? -1 } satisfies StreamTerminatedEvent;
    case 'listenKeyExpired':
      return { type: 'listenKeyExpired', E: int('E', d.E ?? 0) };
    default:
      throw new ParseError('event.e', d.e, 'unknown user data event');
  }
}
