/**
 * Typed client of all twelve endpoints of the legacy /v1 REST interface, through the shared
 * {@link RestAdapter} with the {@link LegacyProfile}.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  Decimal,
  LEGACY_STP_CURRENCIES,
  LegacySubmission,
  LegacyTickerType,
  ValidationError,
  systemClock,
  type Clock,
  type LegacyOrderTypeValue,
  type LegacySideValue,
  type LegacyTickerTypeValue,
} from '../../core/index.js';
import { isObjectLike, optId } from '../parse/fields.js';
import {
  parseLegacyBalances,
  parseLegacyConversion,
  parseLegacyDeposits,
  parseLegacyOrder,
  parseLegacyOrderBook,
  parseLegacyOrders,
  parseLegacyRates,
  parseLegacyTicker,
  parseLegacyTickers,
  parseLegacyTransactions,
  parseLegacyWithdraws,
  type LegacyBalance,
  type LegacyConversion,
  type LegacyDeposit,
  type LegacyOrder,
  type LegacyOrderBook,
  type LegacyRate,
  type LegacyTicker,
  type LegacyTransaction,
  type LegacyWithdraw,
} from '../parse/legacy.js';
import type { EnvelopeKind } from '../transport/envelope.js';
import { EndpointWindowLimiter } from '../transport/EndpointWindowLimiter.js';
import { HttpTransport, type HttpMethod } from '../transport/HttpTransport.js';
import { RestAdapter, type CallAuth, type ResultParser, type RetryPolicy, type TransportLogger } from '../transport/RestAdapter.js';
import { JsonNumberLiteral, type WireParams } from '../transport/wire.js';
import type { DecimalInput } from '../open/validate.js';
import { positive } from '../open/validate.js';
import { LEGACY_REQUESTS_PER_MINUTE, LegacyProfile } from './LegacyProfile.js';
import { FileNonceStore, type NonceStore } from './NonceStore.js';
import { isHttpUrl } from '../transport/httpUrl.js';

/** Constructor options. */
export interface LegacyClientOptions {
  /** `{legacy_base_url}`; paths `/v1/...` are appended. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly apiSecret?: string;
  /**
   * Where nonces come from: a store, or a file path for a {@link FileNonceStore}. Default: a
   * file store at ~/.kancil/legacy-nonce-<hash of the API key>, created on first use, so nonces
   * increase across restarts even if the clock steps back (see NonceStore.ts).
   */
  readonly nonceStore?: NonceStore | string;
  readonly timeoutMs?: number;
  readonly clock?: Clock;
  readonly logger?: TransportLogger;
  readonly retry?: RetryPolicy;
  readonly transport?: HttpTransport;
}

/** POST /v1/stp parameters. */
export interface LegacyStpParams {
  readonly currency: (typeof LEGACY_STP_CURRENCIES)[number];
  /** Rupiah for a buy, crypto units for a sell. */
  readonly amount: DecimalInput;
  readonly side: LegacySideValue;
}

/** POST /v1/order submission 1. `price` is required for limit orders and refused for market orders. */
export interface LegacyCreateOrderParams {
  readonly side: LegacySideValue;
  readonly type: LegacyOrderTypeValue;
  readonly quantity: DecimalInput;
  readonly price?: DecimalInput;
  /** Lower-case currency code, e.g. btc. */
  readonly currency: string;
}

/** Result of an order submission whose response body the spec does not show: the raw data plus an orderId when one is present. */
export interface LegacySubmissionResult {
  readonly orderId: string | undefined;
  readonly data: unknown;
}

/** REST client of the legacy /v1 interface. Every failure, validation included, is a rejected promise. */
export class LegacyClient {
  readonly #adapter: RestAdapter;
  readonly #baseUrl: string;
  readonly #transport: HttpTransport;
  readonly #ownsTransport: boolean;
  /** The client-side request window (60 per endpoint per minute); queryable. */
  readonly limiter: EndpointWindowLimiter;

  constructor(options: LegacyClientOptions) {
    if (!isHttpUrl(options.baseUrl)) throw new ValidationError('baseUrl', options.baseUrl, 'must be an http(s) URL');
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new ValidationError('timeoutMs', timeoutMs, 'must be a positive integer');
    const clock = options.clock ?? systemClock;
    this.#baseUrl = options.baseUrl;
    this.#transport = options.transport ?? new HttpTransport();
    this.#ownsTransport = options.transport === undefined;
    this.limiter = new EndpointWindowLimiter(LEGACY_REQUESTS_PER_MINUTE, 60_000, clock);
    let store: NonceStore | undefined = typeof options.nonceStore === 'object' ? options.nonceStore : undefined;
    const nonces = (): NonceStore => {
      // Created lazily so public-only use never touches the file system.
      store ??= new FileNonceStore(typeof options.nonceStore === 'string' ? options.nonceStore : defaultNoncePath(options.apiKey ?? ''), clock);
      return store;
    };
    const profile = new LegacyProfile({ apiKey: options.apiKey, apiSecret: options.apiSecret, nonces, limiter: this.limiter, clock });
    this.#adapter = new RestAdapter({ transport: this.#transport, profile, timeoutMs, clock, ...(options.retry ? { retry: options.retry } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  }

  /** Closes the connection pools (unless the transport was shared in). */
  async close(): Promise<void> {
    if (this.#ownsTransport) await this.#transport.close();
  }

  /** 1. GET /v1/history/transaction. */
  async transactionHistory(): Promise<LegacyTransaction[]> {
    return this.#call('GET', '/v1/history/transaction', 'auth', {}, 'legacy', true, parseLegacyTransactions);
  }

  /** 2. GET /v1/history/deposit. */
  async depositHistory(): Promise<LegacyDeposit[]> {
    return this.#call('GET', '/v1/history/deposit', 'auth', {}, 'legacy', true, parseLegacyDeposits);
  }

  /** 3. GET /v1/history/withdraw; `BankDetails` (a JSON string) is parsed. */
  async withdrawHistory(): Promise<LegacyWithdraw[]> {
    return this.#call('GET', '/v1/history/withdraw', 'auth', {}, 'legacy', true, parseLegacyWithdraws);
  }

  /** 4. POST /v1/stp (deprecated instant conversion). 5XX/timeout: UnknownOutcomeError. */
  async stp(params: LegacyStpParams): Promise<LegacyConversion> {
    if (!(LEGACY_STP_CURRENCIES as readonly string[]).includes(params.currency)) throw new ValidationError('currency', params.currency, `must be one of ${LEGACY_STP_CURRENCIES.join(', ')}`);
    const body: WireParams = { currency: params.currency, amount: jsonAmount('amount', params.amount), side: side(params.side) };
    return this.#call('POST', '/v1/stp', 'auth', body, 'legacy', false, (d) => parseLegacyConversion(d));
  }

  /** 5. GET /v1/account: balances. */
  async account(): Promise<LegacyBalance[]> {
    return this.#call('GET', '/v1/account', 'auth', {}, 'legacy', true, (d) => parseLegacyBalances(d));
  }

  /** 6/1. POST /v1/order submission 1: create. 5XX/timeout: UnknownOutcomeError (no clientId exists on this interface). */
  async createOrder(params: LegacyCreateOrderParams): Promise<LegacySubmissionResult> {
    if (params.type !== 'limit' && params.type !== 'market') throw new ValidationError('type', params.type, 'must be limit or market');
    if (params.type === 'limit' && params.price === undefined) throw new ValidationError('price', undefined, 'is required for limit orders');
    if (params.type === 'market' && params.price !== undefined) throw new ValidationError('price', params.price.toString(), 'is not sent for market orders');
    if (typeof params.currency !== 'string' || !/^[a-z0-9]{1,20}$/.test(params.currency)) throw new ValidationError('currency', params.currency, 'must be a lower-case currency code');
    const body: WireParams = {
      submission: LegacySubmission.CREATE,
      side: side(params.side),
      quantity: jsonAmount('quantity', params.quantity),
      type: params.type,
      price: params.price === undefined ? undefined : jsonAmount('price', params.price),
      currency: params.currency,
    };
    return this.#call('POST', '/v1/order', 'auth', body, 'legacy', false, submissionResult);
  }

  /** 6/2. Cancel one order. */
  async cancelOrder(orderId: number): Promise<LegacySubmissionResult> {
    return this.#call('POST', '/v1/order', 'auth', { submission: LegacySubmission.CANCEL_ONE, orderId: orderIdValue('orderId', orderId) }, 'legacy', false, submissionResult);
  }

  /** 6/3. Cancel all orders; the exchange answers with a confirmation string. */
  async cancelAllOrders(): Promise<string> {
    return this.#call('POST', '/v1/order', 'auth', { submission: LegacySubmission.CANCEL_ALL }, 'legacy', false, (d) => (typeof d === 'string' ? d : JSON.stringify(d)));
  }

  /** 6/4. Cancel selected orders. */
  async cancelOrders(orderIds: readonly number[]): Promise<LegacySubmissionResult> {
    if (!Array.isArray(orderIds) || orderIds.length === 0) throw new ValidationError('orders', orderIds, 'must list at least one order id');
    const orders = orderIds.map((id, i) => orderIdValue(`orders[${i}]`, id));
    return this.#call('POST', '/v1/order', 'auth', { submission: LegacySubmission.CANCEL_SELECTED, orders }, 'legacy', false, submissionResult);
  }

  /** 7. GET /v1/order/list: active orders. */
  async activeOrders(): Promise<LegacyOrder[]> {
    return this.#call('GET', '/v1/order/list', 'auth', {}, 'legacy', true, parseLegacyOrders);
  }

  /** 8. GET /v1/order/get: one order (`status` and `Status` both read). */
  async getOrder(orderId: number): Promise<LegacyOrder> {
    return this.#call('GET', '/v1/order/get', 'auth', { orderId: orderIdValue('orderId', orderId) }, 'legacy', true, (d) => parseLegacyOrder(d));
  }

  /** 9. POST /v1/rates (public; POST as the spec lists it). A read, so retried like a GET. */
  async rates(): Promise<LegacyRate[]> {
    return this.#call('POST', '/v1/rates', 'none', undefined, 'legacy', true, parseLegacyRates);
  }

  /** 10. GET /v1/rates/ticker. */
  async ticker(pair: string, type: LegacyTickerTypeValue): Promise<LegacyTicker> {
    if (!(Object.values(LegacyTickerType) as string[]).includes(type)) throw new ValidationError('type', type, 'must be hours or days');
    return this.#call('GET', '/v1/rates/ticker', 'none', undefined, 'legacy', true, (d) => parseLegacyTicker(d), { currencyPair: pairText(pair), type });
  }

  /** 11. GET /v1/orderbook/{currencyPair} (no envelope). */
  async orderBook(pair: string, page?: number): Promise<LegacyOrderBook> {
    if (page !== undefined && (!Number.isSafeInteger(page) || page < 0)) throw new ValidationError('page', page, 'must be an integer >= 0');
    const p = pairText(pair);
    return this.#adapter.call(
      { endpoint: 'GET /v1/orderbook/{currencyPair}', method: 'GET', baseUrl: this.#baseUrl, path: `/v1/orderbook/${p}`, query: { page }, auth: 'none', idempotent: true, envelope: 'none' },
      (d) => parseLegacyOrderBook(d),
    );
  }

  /** 12. GET /v1/rates/tickers. */
  async tickers(): Promise<LegacyTicker[]> {
    return this.#call('GET', '/v1/rates/tickers', 'none', undefined, 'legacy', true, parseLegacyTickers);
  }

  #call<T>(method: HttpMethod, path: string, auth: 'auth' | 'none', body: WireParams | undefined, envelope: EnvelopeKind, idempotent: boolean, parse: ResultParser<T>, query?: WireParams): Promise<T> {
    const a: CallAuth = auth === 'auth' ? 'signed' : 'none';
    return this.#adapter.call({ endpoint: `${method} ${path}`, method, baseUrl: this.#baseUrl, path, ...(query ? { query } : {}), ...(body ? { body } : {}), auth: a, idempotent, envelope }, parse);
  }
}

/** Default nonce file: one per API key (hashed, so the key itself never lands on disk). */
export function defaultNoncePath(apiKey: string): string {
  return join(homedir(), '.kancil', `legacy-nonce-${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`);
}

function side(v: LegacySideValue): LegacySideValue {
  if (v !== 'buy' && v !== 'sell') throw new ValidationError('side', v, 'must be buy or sell');
  return v;
}

/**
 * Amounts are JSON numbers on this interface. They are written digit for digit, and refused
 * when a binary double could not hold them exactly: a server parsing JSON numbers as doubles
 * would otherwise trade a different amount than the one we signed.
 */
function jsonAmount(field: string, v: DecimalInput): JsonNumberLiteral {
  const text = positive(field, v);
  if (!new Decimal(Number(text).toString()).eq(text)) throw new ValidationError(field, text, 'has more precision than a JSON number keeps exactly');
  return new JsonNumberLiteral(text);
}

function orderIdValue(field: string, v: number): number {
  if (!Number.isSafeInteger(v) || v < 0) throw new ValidationError(field, v, 'must be a non-negative integer');
  return v;
}

function pairText(pair: string): string {
  // The spec lists the pairs it observed; new pairs appear over time, so the form is checked, not the list.
  if (typeof pair !== 'string' || !/^[a-z0-9]{2,20}idr$/.test(pair)) throw new ValidationError('currencyPair', pair, 'must be a lower-case pair ending in idr, e.g. btcidr');
  return pair;
}

function submissionResult(d: unknown): LegacySubmissionResult {
  return { orderId: isObjectLike(d) ? optId(d, 'orderId', 'order') : undefined, data: d };
}
