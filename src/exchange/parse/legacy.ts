/**
 * Legacy /v1 record parsing. Quirks handled here: amounts are JSON numbers, `BankDetails` is a
 * string holding JSON, order status is `Status` in lists and `status` in detail, and the
 * order book has no envelope.
 */
import { ParseError, type BookLevel, type Decimal } from '../../core/index.js';
import { amountValue, asArray, asObject, flag, int, isoTime, listOf, optStr, str, type WireObject } from './fields.js';
import { parseLevels } from './marketData.js';

/** Transaction history record. */
export interface LegacyTransaction {
  readonly id: string;
  readonly side: string;
  readonly currency: string;
  readonly amount: Decimal;
  readonly status: string;
  /** Epoch ms of DateTime. */
  readonly time: number;
}

/** Deposit history record; txId is null for fiat deposits. */
export interface LegacyDeposit {
  readonly id: string;
  readonly txId: string | null;
  readonly currency: string;
  readonly type: string;
  readonly status: string;
  readonly amount: Decimal;
  readonly time: number;
}

/** Bank details of a fiat withdrawal, parsed from the JSON string the wire carries. */
export interface LegacyBankDetails {
  readonly updatedAt?: string;
  readonly userId?: string;
  readonly city?: string;
  readonly accountNumber?: string;
  readonly bankAccountId?: string;
  readonly bankName?: string;
  readonly bankAccountType?: string;
  readonly status?: string;
  readonly createdAt?: string;
  /** Every field as sent, in case the set grows. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** Withdraw history record. */
export interface LegacyWithdraw {
  readonly id: string;
  readonly fee: Decimal;
  readonly type: string;
  readonly status: string;
  readonly currency: string;
  readonly amount: Decimal;
  readonly txId: string | null;
  readonly bankDetails: LegacyBankDetails | null;
  readonly time: number;
}

/** Result of the deprecated instant conversion. */
export interface LegacyConversion {
  readonly conversionId: string;
  readonly time: number;
  readonly side: string;
  readonly price: Decimal;
  readonly amount: Decimal;
  readonly currency: string;
}

/** One balance entry. */
export interface LegacyBalance {
  readonly currency: string;
  readonly amount: Decimal;
  readonly availableBalance: Decimal;
  readonly status: string;
}

/** An order from order/list or order/get, with `Status`/`status` normalised into `status`. */
export interface LegacyOrder {
  readonly orderId: number;
  readonly type: string;
  readonly side: string;
  readonly currencyPair: string;
  readonly quantity: Decimal;
  readonly availableQuantity: Decimal;
  readonly postOnly: boolean;
  readonly price: Decimal;
  readonly status: string;
  readonly time: number;
}

/** A rate entry. */
export interface LegacyRate {
  readonly currencyPair: string;
  readonly buy: Decimal;
  readonly sell: Decimal;
}

/** A ticker; `date` is the date-only DateTime (YYYY-MM-DD). */
export interface LegacyTicker {
  readonly name: string;
  readonly close: Decimal;
  readonly low: Decimal;
  readonly high: Decimal;
  readonly open: Decimal;
  readonly volume: Decimal;
  readonly buy: Decimal;
  readonly sell: Decimal;
  readonly date: string;
}

/** The un-enveloped order book. */
export interface LegacyOrderBook {
  readonly bids: readonly BookLevel[];
  readonly asks: readonly BookLevel[];
  readonly timestamp: number;
}

function dec(o: WireObject, key: string, where: string): Decimal {
  return amountValue(`${where}.${key}`, o[key]);
}

function nullableStr(o: WireObject, key: string, where: string): string | null {
  return optStr(o, key, where) ?? null;
}

/** Parses transaction history. */
export function parseLegacyTransactions(data: unknown): LegacyTransaction[] {
  return listOf('transactions', data).map((v, i) => {
    const w = `transactions[${i}]`;
    const o = asObject(w, v);
    return { id: str(o, 'Id', w), side: str(o, 'Side', w), currency: str(o, 'Currency', w), amount: dec(o, 'Amount', w), status: str(o, 'Status', w), time: isoTime(o, 'DateTime', w) };
  });
}

/** Parses deposit history. */
export function parseLegacyDeposits(data: unknown): LegacyDeposit[] {
  return listOf('deposits', data).map((v, i) => {
    const w = `deposits[${i}]`;
    const o = asObject(w, v);
    return { id: str(o, 'Id', w), txId: nullableStr(o, 'TxId', w), currency: str(o, 'Currency', w), type: str(o, 'Type', w), status: str(o, 'Status', w), amount: dec(o, 'Amount', w), time: isoTime(o, 'DateTime', w) };
  });
}

/** Parses the `BankDetails` string (JSON inside a string), or null. */
export function parseBankDetails(where: string, v: unknown): LegacyBankDetails | null {
  if (v === null || v === undefined || v === '') return null;
  let obj: unknown = v;
  if (typeof v === 'string') {
    try {
      obj = JSON.parse(v) as unknown;
    } catch (e) {
      throw new ParseError(where, v, `BankDetails string is not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  const o = asObject(where, obj);
  const s = (k: string): string | undefined => {
    const x = o[k];
    if (x === undefined || x === null) return undefined;
    if (typeof x === 'string' || typeof x === 'number') return String(x);
    throw new ParseError(`${where}.${k}`, x, 'expected a string or number');
  };
  const out: Record<string, unknown> = { raw: o };
  const map: [string, keyof LegacyBankDetails][] = [
    ['UpdatedAt', 'updatedAt'], ['UserId', 'userId'], ['City', 'city'], ['AccountNumber', 'accountNumber'], ['BankAccountId', 'bankAccountId'],
    ['BankName', 'bankName'], ['BankAccountType', 'bankAccountType'], ['Status', 'status'], ['CreatedAt', 'createdAt'],
  ];
  for (const [wire, name] of map) {
    const val = s(wire);
    if (val !== undefined) out[name] = val;
  }
  return out as unknown as LegacyBankDetails;
}

/** Parses withdraw history. */
export function parseLegacyWithdraws(data: unknown): LegacyWithdraw[] {
  return listOf('withdraws', data).map((v, i) => {
    const w = `withdraws[${i}]`;
    const o = asObject(w, v);
    return {
      id: str(o, 'Id', w),
      fee: dec(o, 'Fee', w),
      type: str(o, 'Type', w),
      status: str(o, 'Status', w),
      currency: str(o, 'Currency', w),
      amount: dec(o, 'Amount', w),
      txId: nullableStr(o, 'TxId', w),
      bankDetails: parseBankDetails(`${w}.BankDetails`, o.BankDetails),
      time: isoTime(o, 'DateTime', w),
    };
  });
}

/** Parses the conversion record of POST /v1/stp. */
export function parseLegacyConversion(v: unknown, w = 'conversion'): LegacyConversion {
  const o = asObject(w, v);
  return { conversionId: str(o, 'ConversionId', w), time: isoTime(o, 'DateTime', w), side: str(o, 'Side', w), price: dec(o, 'Price', w), amount: dec(o, 'Amount', w), currency: str(o, 'Currency', w) };
}

/** Parses `data` of GET /v1/account (`{Balance: [...]}`). */
export function parseLegacyBalances(v: unknown, where = 'account'): LegacyBalance[] {
  const o = asObject(where, v);
  return asArray(`${where}.Balance`, o.Balance).map((b, i) => {
    const w = `${where}.Balance[${i}]`;
    const bo = asObject(w, b);
    return { currency: str(bo, 'Currency', w), amount: dec(bo, 'Amount', w), availableBalance: dec(bo, 'AvailableBalance', w), status: str(bo, 'Status', w) };
  });
}

/** Parses an order of order/list (`Status`) or order/get (`status`). */
export function parseLegacyOrder(v: unknown, w = 'order'): LegacyOrder {
  const o = asObject(w, v);
  const status = o.status ?? o.Status;
  if (typeof status !== 'string') throw new ParseError(`${w}.status`, status, 'expected a string in status or Status');
  return {
    orderId: int(o, 'orderId', w),
    type: str(o, 'type', w),
    side: str(o, 'side', w),
    currencyPair: str(o, 'currencyPair', w),
    quantity: dec(o, 'quantity', w),
    availableQuantity: dec(o, 'availableQuantity', w),
    postOnly: flag(o, 'postOnly', w),
    price: dec(o, 'price', w),
    status,
    time: isoTime(o, 'dateTime', w),
  };
}

/** Parses active orders. */
export function parseLegacyOrders(data: unknown): LegacyOrder[] {
  return listOf('orders', data).map((v, i) => parseLegacyOrder(v, `orders[${i}]`));
}

/** Parses rates. */
export function parseLegacyRates(data: unknown): LegacyRate[] {
  return listOf('rates', data).map((v, i) => {
    const w = `rates[${i}]`;
    const o = asObject(w, v);
    return { currencyPair: str(o, 'currencyPair', w), buy: dec(o, 'buy', w), sell: dec(o, 'sell', w) };
  });
}

/** Parses one ticker. */
export function parseLegacyTicker(v: unknown, w = 'ticker'): LegacyTicker {
  const o = asObject(w, v);
  const date = str(o, 'DateTime', w);
  if (!/^\d{4}-\d{2}-\d{2}/.test(date)) throw new ParseError(`${w}.DateTime`, date, 'expected YYYY-MM-DD');
  return {
    name: str(o, 'Name', w),
    close: dec(o, 'Close', w),
    low: dec(o, 'Low', w),
    high: dec(o, 'High', w),
    open: dec(o, 'Open', w),
    volume: dec(o, 'Volume', w),
    buy: dec(o, 'Buy', w),
    sell: dec(o, 'Sell', w),
    date: date.slice(0, 10),
  };
}

/** Parses all tickers. */
export function parseLegacyTickers(data: unknown): LegacyTicker[] {
  return listOf('tickers', data).map((v, i) => parseLegacyTicker(v, `tickers[${i}]`));
}

/** Parses the un-enveloped order book. */
export function parseLegacyOrderBook(v: unknown, w = 'orderbook'): LegacyOrderBook {
  const o = asObject(w, v);
  return { bids: parseLevels(`${w}.bids`, o.bids), asks: parseLevels(`${w}.asks`, o.asks), timestamp: int(o, 'timestamp', w) };
}
