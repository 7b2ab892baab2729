/**
 * Rejection messages, shared by the fast checker and the decimal reference so both say the same
 * words. Every message names the field and its value; the values printed are inputs (intent
 * fields, filter parameters, context values), never derived floats.
 */
import type { Decimal } from '../core/decimal.js';
import type { RejectReasonName } from '../core/enums.js';
import type { RiskReject } from './types.js';

/** A piece of a lazily built message: text, a decimal (printed in wire form) or an integer. */
export type MessagePart = string | number | Decimal;

/**
 * A reject verdict whose message is built on first read: formatting decimals costs more than the
 * whole check, and most rejections (e.g. a strategy hammering a limit) are never printed.
 * `toJSON` keeps it serialisable as { kind, reason, message }.
 */
class Reject implements RiskReject {
  readonly kind = 'reject' as const;
  #text: string | undefined;
  #build: (() => string) | undefined;
  #parts: readonly MessagePart[] | undefined;
  constructor(
    readonly reason: RejectReasonName,
    message: string | (() => string) | readonly MessagePart[],
  ) {
    if (typeof message === 'string') this.#text = message;
    else if (typeof message === 'function') this.#build = message;
    else this.#parts = message;
  }
  get message(): string {
    if (this.#text === undefined) {
      this.#text = this.#build ? this.#build() : (this.#parts ?? []).map((p) => (typeof p === 'object' ? fmt(p) : String(p))).join('');
      this.#build = undefined;
      this.#parts = undefined;
    }
    return this.#text;
  }
  toJSON(): { kind: 'reject'; reason: RejectReasonName; message: string } {
    return { kind: 'reject', reason: this.reason, message: this.message };
  }
}

/** Builds a reject verdict; pass a function to defer building the message until it is read. */
export function reject(reason: RejectReasonName, message: string | (() => string)): RiskReject {
  return new Reject(reason, message);
}

/**
 * Builds a reject verdict from message parts joined on first read. Unlike a closure this
 * captures nothing, so the calling function allocates nothing on its passing path.
 */
export function rejectParts(reason: RejectReasonName, ...parts: MessagePart[]): RiskReject {
  return new Reject(reason, parts);
}

/** Wire form of a decimal for messages. */
export function fmt(d: Decimal): string {
  return d.toFixed();
}

/** `field=v is below <what> <bound>`. */
export function belowMin(reason: RejectReasonName, field: string, v: Decimal, what: string, bound: Decimal): RiskReject {
  return reject(reason, () => `${field}=${fmt(v)} is below ${what} ${fmt(bound)}`);
}

/** `field=v is above <what> <bound>`. */
export function aboveMax(reason: RejectReasonName, field: string, v: Decimal, what: string, bound: Decimal): RiskReject {
  return reject(reason, () => `${field}=${fmt(v)} is above ${what} ${fmt(bound)}`);
}

/** A value off its grid: `(v - base) % step != 0`. */
export function offStep(reason: RejectReasonName, field: string, v: Decimal, baseName: string, base: Decimal, stepName: string, step: Decimal): RiskReject {
  return reject(reason, () => `${field}=${fmt(v)} is not ${baseName} ${fmt(base)} plus a multiple of ${stepName} ${fmt(step)}`);
}

/** A price outside `ref * multiplier` (PERCENT_PRICE, PRICE_RANGE). */
export function outsideBand(reason: RejectReasonName, price: Decimal, above: boolean, refName: string, ref: Decimal, multName: string, mult: Decimal): RiskReject {
  return reject(reason, () => `price=${fmt(price)} is ${above ? 'above' : 'below'} ${refName} ${fmt(ref)} * ${multName} ${fmt(mult)}`);
}

/** ICEBERG_PARTS exceeded. */
export function tooManyParts(qty: Decimal, iceberg: Decimal, limit: number): RiskReject {
  return reject('ICEBERG_PARTS', () => `quantity=${fmt(qty)} / icebergQty=${fmt(iceberg)} needs more than ${limit} parts`);
}

/** NOTIONAL outside its bounds. */
export function notionalOut(qty: Decimal | undefined, above: boolean, bound: Decimal): RiskReject {
  return reject('NOTIONAL', () => `notional of quantity=${qty === undefined ? '-' : fmt(qty)} is ${above ? 'above maxNotional' : 'below minNotional'} ${fmt(bound)}`);
}

/** REDUCING state and an order that does not reduce the position. */
export function notReducing(side: string, qty: Decimal | undefined, base: string, position: Decimal): RiskReject {
  return reject('REDUCING_ONLY', () => `side=${side} quantity=${qty === undefined ? '-' : fmt(qty)}: trading is REDUCING and the order does not reduce the ${base} position ${fmt(position)}`);
}

/** The visible book cannot fill a market order. */
export function noLiquidity(qty: Decimal, side: string): RiskReject {
  return reject('NO_MARKET_LIQUIDITY', () => `quantity=${fmt(qty)}: the visible book cannot fill a MARKET ${side}`);
}

/** No ask to bound a quoteOrderQty buy's quantity. */
export function noAsk(quoteOrderQty: Decimal): RiskReject {
  return reject('NO_MARKET_LIQUIDITY', () => `quoteOrderQty=${fmt(quoteOrderQty)}: no ask to estimate the quantity`);
}

/** MAX_ORDER_NOTIONAL exceeded. */
export function overNotionalLimit(value: Decimal, quote: string, max: Decimal): RiskReject {
  return reject('MAX_ORDER_NOTIONAL', () => `order value ${fmt(value)} ${quote} is above maxOrderNotional ${fmt(max)}`);
}

/** MAX_POSITION exceeded. */
export function overPosition(field: string, v: Decimal, base: string, position: Decimal, buy: boolean, max: Decimal): RiskReject {
  return reject('MAX_POSITION', () => `${field}=${fmt(v)} would take the ${base} position ${fmt(position)} ${buy ? 'above maxPosition' : 'below -maxPosition'} ${fmt(max)}`);
}

/** DAILY_LOSS_LIMIT reached. */
export function lossLimitHit(pnl: Decimal, limit: Decimal): RiskReject {
  return reject('DAILY_LOSS_LIMIT', () => `daily PnL ${fmt(pnl)} reached dailyLossLimit ${fmt(limit)}: only reducing orders pass`);
}

/** Not enough free balance. */
export function insufficient(buy: boolean, v: Decimal, asset: string, free: Decimal): RiskReject {
  return reject('INSUFFICIENT_BALANCE', () => buy ? `order value ${fmt(v)} ${asset} is above free ${asset} ${fmt(free)}` : `quantity=${fmt(v)} is above free ${asset} ${fmt(free)}`);
}
