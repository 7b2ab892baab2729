/**
 * Typed client of every REST endpoint of the open API (spec summary table), plus the system
 * config endpoint and server-time sync. All calls go through the shared {@link RestAdapter}.
 */
import {
  DepositStatus,
  OrderSide,
  OrdersListType,
  ValidationError,
  WithdrawStatus,
  isKlineInterval,
  systemClock,
  type AccountInfo,
  type AccountTrade,
  type AggTrade,
  type Balance,
  type Clock,
  type Kline,
  type Order,
  type OrderBookSnapshot,
  type PublicTrade,
  type ReferencePrice,
  type SymbolInfo,
  type SymbolTypeCode,
  marketSymbol,
} from '../../core/index.js';
import { parseAccountInfo, parseAccountTrades, parseBalance } from '../parse/account.js';
import { asObject, intValue } from '../parse/fields.js';
import { parseAggTrades, parseKlines, parseOrderBook, parsePublicTrades } from '../parse/marketData.js';
import { parseOcoOrderList, parseOrder, parseOrders } from '../parse/order.js';
import type { DepositAddress, DepositRecord, ExecutionRules, ListenToken, OcoOrderList, SystemConfig, WithdrawAck, WithdrawRecord } from '../parse/records.js';
import { parseExecutionRules, parseListenToken, parseReferencePrice, parseSystemConfig } from '../parse/rules.js';
import { parseSymbols } from '../parse/symbol.js';
import { parseDepositAddress, parseDepositRecords, parseWithdrawId, parseWithdrawRecords } from '../parse/wallet.js';
import type { EnvelopeKind } from '../transport/envelope.js';
import { HttpTransport } from '../transport/HttpTransport.js';
import { RateLimitState } from '../transport/RateLimitState.js';
import { type CallAuth, type CallSpec, RestAdapter, type ResultParser, type RetryPolicy, type TransportLogger } from '../transport/RestAdapter.js';
import type { HttpMethod } from '../transport/HttpTransport.js';
import type { WireParams } from '../transport/wire.js';
import { CLIENT_ID_MAX, generateClientId, newOcoWire, newOrderWire } from './newOrderWire.js';
import { OpenProfile, checkRecvWindow } from './OpenProfile.js';
import {
  DEPTH_LIMITS,
  type AccountTradesParams,
  type AggTradesParams,
  type AllOrdersParams,
  type CancelOrderParams,
  type DepositAddressParams,
  type DepositsParams,
  type DepthParams,
  type ExecutionRulesParams,
  type KlinesParams,
  type NewOcoParams,
  type NewOrderParams,
  type OrderDetailParams,
  type SignedOptions,
  type TradesParams,
  type WithdrawHistoryParams,
  type WithdrawParams,
} from './params.js';
import { routeMarket, type MarketEndpoint, type OpenHosts } from './routing.js';
import { isHttpUrl } from '../transport/httpUrl.js';
import { idText, optLimit, optLong, pagingDirect, positive, requiredText, text, timeRange } from './validate.js';

/** Constructor options. URLs may carry a path prefix. */
export interface OpenClientOptions {
  readonly baseUrl: string;
  readonly marketUrl: string;
  readonly depthUrl: string;
  readonly apiKey?: string;
  readonly apiSecret?: string;
  /** Per-request header and body timeout (default 10 s). */
  readonly timeoutMs?: number;
  /** Default recvWindow for SIGNED calls (max 60000; the server's default 5000 applies when unset). */
  readonly recvWindow?: number;
  readonly clock?: Clock;
  readonly logger?: TransportLogger;
  /** Retry policy for idempotent calls (GET); non-idempotent calls are never retried. */
  readonly retry?: RetryPolicy;
  /** Shared rate-limit state: one per IP, given to every client on that IP; a new one by default. */
  readonly rateLimits?: RateLimitState;
  /** Request-weight limits per interval (`{ '1M': 6000 }`) for a new rate-limit state; the spec does not show them. */
  readonly weightLimits?: Readonly<Record<string, number>>;
  /** Shared transport; when given, {@link OpenClient.close} leaves it open. */
  readonly transport?: HttpTransport;
  /** Least time between two offset measurements caused by timestamp refusals (default {@link RESYNC_MIN_INTERVAL_MS}). */
  readonly resyncMinIntervalMs?: number;
}

/** Listen-key paths by symbol type (type 3 lives under private-n). */
const LISTEN_KEY_PATH = { 1: '/open/v1/user-data-stream', 3: '/open/v1/private-n/user-data-stream' } as const;

/** Least time between two offset measurements caused by timestamp refusals. */
export const RESYNC_MIN_INTERVAL_MS = 1_000;

/** Maximum listen-token validity: 24 hours. */
export const MAX_LISTEN_TOKEN_VALIDITY_MS = 86_400_000;

/**
 * REST client of the open API. Every method reports every failure (validation included) as a
 * rejected promise with one of the core error classes; nothing is thrown synchronously.
 */
export class OpenClient {
  /** Rate-limit state of the IP across every host: used weights, order counts, blocks. */
  readonly rateLimits: RateLimitState;
  readonly #hosts: OpenHosts;
  readonly #adapter: RestAdapter;
  readonly #transport: HttpTransport;
  readonly #ownsTransport: boolean;
  readonly #clock: Clock;
  readonly #resyncMinIntervalMs: number;
  #timeOffset = 0;
  /** When the offset was last measured (local ms; 0: never), and the measurement under way. */
  #syncedAt = 0;
  #syncing: Promise<number> | undefined;

  constructor(options: OpenClientOptions) {
    for (const k of ['baseUrl', 'marketUrl', 'depthUrl'] as const) {
      const v = options[k];
      if (!isHttpUrl(v)) throw new ValidationError(k, v, 'must be an http(s) URL');
    }
    if (options.recvWindow !== undefined) checkRecvWindow(options.recvWindow);
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new ValidationError('timeoutMs', timeoutMs, 'must be a positive integer');
    this.#hosts = { baseUrl: options.baseUrl, marketUrl: options.marketUrl, depthUrl: options.depthUrl };
    this.#clock = options.clock ?? systemClock;
    this.#resyncMinIntervalMs = options.resyncMinIntervalMs ?? RESYNC_MIN_INTERVAL_MS;
    this.rateLimits = options.rateLimits ?? new RateLimitState(this.#clock, options.weightLimits);
    this.#transport = options.transport ?? new HttpTransport();
    this.#ownsTransport = options.transport === undefined;
    const profile = new OpenProfile({
      apiKey: options.apiKey,
      apiSecret: options.apiSecret,
      recvWindow: options.recvWindow,
      clock: this.#clock,
      rateLimits: this.rateLimits,
      timeOffset: () => this.#timeOffset,
      resync: (preparedAt) => this.#resyncAfterRefusal(preparedAt),
    });
    this.#adapter = new RestAdapter({ transport: this.#transport, profile, timeoutMs, clock: this.#clock, ...(options.retry ? { retry: options.retry } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  }

  /** Server time minus local time in ms, as last measured by {@link syncTime} (0 before). */
  get timeOffsetMs(): number {
    return this.#timeOffset;
  }

  /** Closes the connection pools (unless the transport was shared in). */
  async close(): Promise<void> {
    if (this.#ownsTransport) await this.#transport.close();
  }

  // ---- general ----

  /** GET /open/v1/common/time: the server time in epoch ms (the envelope's timestamp). */
  async time(): Promise<number> {
    return this.#get(this.#hosts.baseUrl, '/open/v1/common/time', undefined, 'none', 'open', (_d, env) => intValue('time.timestamp', env?.timestamp));
  }

  /**
   * Measures the server-time offset from /open/v1/common/time and uses it for `timestamp`.
   * The midpoint of the request is taken as the moment the server read its clock.
   */
  async syncTime(): Promise<number> {
    // Concurrent callers (several orders refused by one clock step) share one measurement.
    this.#syncing ??= (async () => {
      const t0 = this.#clock.now();
      const server = await this.time();
      const t1 = this.#clock.now();
      this.#timeOffset = Math.round(server - (t0 + t1) / 2);
      this.#syncedAt = t1;
      return this.#timeOffset;
    })().finally(() => (this.#syncing = undefined));
    return this.#syncing;
  }

  /**
   * After a timestamp refusal (the local clock stepped, or drifted past the recvWindow): a request
   * signed before the last measurement is simply sent again with the newer offset; otherwise the
   * offset is measured again, at most once per least interval (`resyncMinIntervalMs`), so a server that
   * refuses every timestamp costs one time request per interval and not one per order.
   */
  async #resyncAfterRefusal(preparedAt: number): Promise<boolean> {
    if (this.#syncedAt > preparedAt) return true;
    if (this.#syncing === undefined && this.#syncedAt !== 0 && this.#clock.now() - this.#syncedAt < this.#resyncMinIntervalMs) return false;
    try {
      await this.syncTime();
      return true;
    } catch {
      return false;
    }
  }

  /** GET /open/v1/common/symbols. */
  async symbols(): Promise<SymbolInfo[]> {
    return this.#get(this.#hosts.baseUrl, '/open/v1/common/symbols', undefined, 'none', 'open', parseSymbols);
  }

  /** GET /v1/common/system-config: where the WebSocket API lives. Envelope optional (not shown). */
  async systemConfig(): Promise<SystemConfig> {
    return this.#get(this.#hosts.baseUrl, '/v1/common/system-config', undefined, 'none', 'open-optional', parseSystemConfig);
  }

  /**
   * GET {market_url}/api/v3/executionRules (no envelope). Symbols are type 1 only, so they are
   * respelled without the underscore; the answer keeps the host's spelling.
   */
  async executionRules(params: ExecutionRulesParams = {}): Promise<ExecutionRules> {
    const given = [params.symbol, params.symbols, params.symbolStatus].filter((x) => x !== undefined).length;
    if (given > 1) throw new ValidationError('symbol', params, 'send only one of symbol, symbols, symbolStatus');
    if (params.symbols !== undefined && (params.symbols.length === 0 || params.symbols.length > 40)) throw new ValidationError('symbols', params.symbols, 'must list 1..40 symbols');
    if (params.symbolStatus !== undefined && !['TRADING', 'HALT', 'BREAK'].includes(params.symbolStatus)) throw new ValidationError('symbolStatus', params.symbolStatus, 'must be TRADING, HALT or BREAK');
    const query: WireParams = {
      symbol: params.symbol === undefined ? undefined : marketSymbol(requiredText('symbol', params.symbol, 50), 1),
      symbols: params.symbols?.map((s, i) => marketSymbol(requiredText(`symbols[${i}]`, s, 50), 1)),
      symbolStatus: params.symbolStatus,
    };
    return this.#get(this.#hosts.marketUrl, '/api/v3/executionRules', query, 'none', 'none', (d) => parseExecutionRules(d));
  }

  /**
   * GET {market_url}/api/v3/referencePrice. Parameters are not shown; `symbol` in the market
   * host's spelling (type 1, underscore removed) is sent. Envelope optional.
   */
  async referencePrice(symbol: string): Promise<ReferencePrice> {
    const s = marketSymbol(requiredText('symbol', symbol, 50), 1);
    return this.#get(this.#hosts.marketUrl, '/api/v3/referencePrice', { symbol: s }, 'none', 'open-optional', (d) => parseReferencePrice(d));
  }

  // ---- market data (routed by symbol type) ----

  /** Order book snapshot. */
  async depth(params: DepthParams): Promise<OrderBookSnapshot> {
    if (params.limit !== undefined && !(DEPTH_LIMITS as readonly number[]).includes(params.limit)) throw new ValidationError('limit', params.limit, `must be one of ${DEPTH_LIMITS.join(', ')}`);
    return this.#market('depth', params, { limit: params.limit }, (d) => parseOrderBook(d));
  }

  /** Recent public trades. */
  async trades(params: TradesParams): Promise<PublicTrade[]> {
    return this.#market('trades', params, { fromId: idText('fromId', params.fromId, true), limit: optLimit('limit', params.limit, 1000) }, parsePublicTrades);
  }

  /** Aggregate trades. */
  async aggTrades(params: AggTradesParams): Promise<AggTrade[]> {
    timeRange(params.startTime, params.endTime);
    return this.#market(
      'aggTrades',
      params,
      { fromId: idText('fromId', params.fromId, true), startTime: params.startTime, endTime: params.endTime, limit: optLimit('limit', params.limit, 1000) },
      parseAggTrades,
    );
  }

  /** Klines. */
  async klines(params: KlinesParams): Promise<Kline[]> {
    if (!isKlineInterval(params.interval)) throw new ValidationError('interval', params.interval, 'must be a kline interval such as 1m, 1h, 1d');
    timeRange(params.startTime, params.endTime);
    return this.#market(
      'klines',
      params,
      { interval: params.interval, startTime: params.startTime, endTime: params.endTime, limit: optLimit('limit', params.limit, 1000) },
      (d) => parseKlines(d, params.interval),
    );
  }

  // ---- orders ----

  /**
   * POST /open/v1/orders. Validates the per-type mandatory parameters; generates a clientId
   * when absent. A 5XX, timeout or broken connection throws UnknownOutcomeError carrying that
   * clientId: reconcile before sending anything else for this order. Never retried.
   */
  async newOrder(params: NewOrderParams): Promise<Order> {
    const { params: wire, clientId } = newOrderWire(params);
    return this.#signed('POST', '/open/v1/orders', wire, params, (d) => parseOrder(d, 'newOrder'), clientId);
  }

  /** GET /open/v1/orders/detail. */
  async orderDetail(params: OrderDetailParams): Promise<Order> {
    const query = { orderId: idText('orderId', params.orderId), clientId: text('clientId', params.clientId, CLIENT_ID_MAX, true) };
    return this.#signed('GET', '/open/v1/orders/detail', query, params, (d) => parseOrder(d, 'orderDetail'));
  }

  /** POST /open/v1/orders/cancel by orderId or clientId. 5XX/timeout: UnknownOutcomeError. */
  async cancelOrder(params: CancelOrderParams): Promise<Order> {
    const hasId = params.orderId !== undefined;
    const hasClient = params.clientId !== undefined;
    if (hasId === hasClient) throw new ValidationError('orderId', params, 'give exactly one of orderId or clientId');
    const body = { orderId: idText('orderId', params.orderId, true), clientId: text('clientId', params.clientId, CLIENT_ID_MAX, true) };
    return this.#signed('POST', '/open/v1/orders/cancel', body, params, (d) => parseOrder(d, 'cancelOrder'), params.clientId);
  }

  /** GET /open/v1/orders (open, history or all). */
  async allOrders(params: AllOrdersParams): Promise<Order[]> {
    timeRange(params.startTime, params.endTime);
    const fromId = idText('fromId', params.fromId, true);
    pagingDirect(fromId, params.direct);
    if (params.type !== undefined && !(params.type in OrdersListType)) throw new ValidationError('type', params.type, 'must be OPEN, HISTORY or ALL');
    if (params.side !== undefined && !(params.side in OrderSide)) throw new ValidationError('side', params.side, 'must be BUY or SELL');
    const query: WireParams = {
      symbol: requiredText('symbol', params.symbol, 50),
      type: params.type === undefined ? undefined : OrdersListType[params.type],
      side: params.side === undefined ? undefined : OrderSide[params.side],
      startTime: params.startTime,
      endTime: params.endTime,
      fromId,
      direct: params.direct,
      limit: optLimit('limit', params.limit, 1000),
    };
    return this.#signed('GET', '/open/v1/orders', query, params, (d) => parseOrders(d));
  }

  /** POST /open/v1/orders/oco; the UnknownOutcomeError carries the listClientId. */
  async newOco(params: NewOcoParams): Promise<OcoOrderList> {
    const { params: wire, listClientId } = newOcoWire(params);
    return this.#signed('POST', '/open/v1/orders/oco', wire, params, (d) => parseOcoOrderList(d), listClientId);
  }

  // ---- account ----

  /** GET /open/v1/account/spot. */
  async account(options: SignedOptions = {}): Promise<AccountInfo> {
    return this.#signed('GET', '/open/v1/account/spot', {}, options, (d) => parseAccountInfo(d));
  }

  /** GET /open/v1/account/spot/asset. */
  async asset(asset: string, options: SignedOptions = {}): Promise<Balance> {
    return this.#signed('GET', '/open/v1/account/spot/asset', { asset: requiredText('asset', asset, 50) }, options, (d) => parseBalance(d, 'asset'));
  }

  /** GET /open/v1/orders/trades. */
  async accountTrades(params: AccountTradesParams): Promise<AccountTrade[]> {
    timeRange(params.startTime, params.endTime);
    const fromId = idText('fromId', params.fromId, true);
    pagingDirect(fromId, params.direct);
    const query: WireParams = {
      symbol: requiredText('symbol', params.symbol, 50),
      orderId: idText('orderId', params.orderId, true),
      startTime: params.startTime,
      endTime: params.endTime,
      fromId,
      direct: params.direct,
      limit: optLimit('limit', params.limit, 1000),
      rebateStatus: optLong('rebateStatus', params.rebateStatus, 2),
    };
    return this.#signed('GET', '/open/v1/orders/trades', query, params, parseAccountTrades);
  }

  // ---- wallet ----

  /** POST /open/v1/withdraws. Generates a clientId when absent; 5XX/timeout: UnknownOutcomeError with it. */
  async withdraw(params: WithdrawParams): Promise<WithdrawAck> {
    const clientId = params.clientId === undefined ? generateClientId() : requiredText('clientId', params.clientId, CLIENT_ID_MAX);
    const body: WireParams = {
      asset: requiredText('asset', params.asset, 50),
      clientId,
      network: text('network', params.network, 50, true),
      address: requiredText('address', params.address, 128),
      addressTag: text('addressTag', params.addressTag, 64, true),
      amount: positive('amount', params.amount),
    };
    if (String(body.amount).length > 32) throw new ValidationError('amount', body.amount, 'must be at most 32 characters');
    const withdrawId = await this.#signed('POST', '/open/v1/withdraws', body, params, (d) => parseWithdrawId(d), clientId);
    return { withdrawId, clientId };
  }

  /** GET /open/v1/withdraws. */
  async withdrawHistory(params: WithdrawHistoryParams = {}): Promise<WithdrawRecord[]> {
    return this.#signed('GET', '/open/v1/withdraws', walletHistoryQuery(params, WithdrawStatus), params, parseWithdrawRecords);
  }

  /** GET /open/v1/deposits. */
  async deposits(params: DepositsParams = {}): Promise<DepositRecord[]> {
    return this.#signed('GET', '/open/v1/deposits', walletHistoryQuery(params, DepositStatus), params, parseDepositRecords);
  }

  /** GET /open/v1/deposits/address. */
  async depositAddress(params: DepositAddressParams): Promise<DepositAddress> {
    const query = { asset: requiredText('asset', params.asset, 50), network: requiredText('network', params.network, 50) };
    return this.#signed('GET', '/open/v1/deposits/address', query, params, (d) => parseDepositAddress(d));
  }

  // ---- user data stream keys ----

  /**
   * POST listen key (type 1 path deprecated in favour of {@link createListenToken}; type 3 stays).
   * Security is unlabelled in the spec; the API key header is sent because a listen key is
   * per account and cannot be issued without knowing whose.
   */
  async createListenKey(symbolType: 1 | 3): Promise<string> {
    return this.#adapter.call(this.#spec('POST', this.#hosts.baseUrl, listenKeyPath(symbolType), undefined, {}, 'key', 'open', true), (d) => {
      if (typeof d === 'string' && d !== '') return d;
      // Some gateways wrap it as {listenKey}; accepted so a harmless shape change does not break streams.
      const o = asObject('listenKey', d);
      return requiredText('listenKey', o.listenKey as string | undefined, 64);
    });
  }

  /** PUT listen key: extends its validity by 60 minutes. The spec's answer is an empty object, so an envelope is optional. */
  async keepAliveListenKey(symbolType: 1 | 3, listenKey: string): Promise<void> {
    const key = requiredText('listenKey', listenKey, 64);
    await this.#adapter.call(this.#spec('PUT', this.#hosts.baseUrl, listenKeyPath(symbolType), { listenKey: key }, undefined, 'key', 'open-optional', true), () => undefined);
  }

  /** DELETE listen key (answer: an empty object, envelope optional). */
  async closeListenKey(symbolType: 1 | 3, listenKey: string): Promise<void> {
    const key = requiredText('listenKey', listenKey, 64);
    await this.#adapter.call(this.#spec('DELETE', this.#hosts.baseUrl, listenKeyPath(symbolType), { listenKey: key }, undefined, 'key', 'open-optional', true), () => undefined);
  }

  /**
   * POST /open/v1/user-listen-token (SIGNED). validityMs max 24 h. Creating a token has no
   * effect beyond issuing one, so it is safe to repeat: treated as idempotent.
   */
  async createListenToken(validityMs?: number): Promise<ListenToken> {
    if (validityMs !== undefined && (!Number.isInteger(validityMs) || validityMs <= 0 || validityMs > MAX_LISTEN_TOKEN_VALIDITY_MS)) {
      throw new ValidationError('validity', validityMs, `must be an integer in 1..${MAX_LISTEN_TOKEN_VALIDITY_MS} ms`);
    }
    return this.#adapter.call(this.#spec('POST', this.#hosts.baseUrl, '/open/v1/user-listen-token', undefined, { validity: validityMs }, 'signed', 'open', true), (d) => parseListenToken(d));
  }

  // ---- plumbing ----

  #spec(method: HttpMethod, baseUrl: string, path: string, query: WireParams | undefined, body: WireParams | undefined, auth: CallAuth, envelope: EnvelopeKind, idempotent: boolean, extra: Partial<CallSpec> = {}): CallSpec {
    return { endpoint: `${method} ${path}`, method, baseUrl, path, ...(query ? { query } : {}), ...(body ? { body } : {}), auth, envelope, idempotent, ...extra };
  }

  #get<T>(baseUrl: string, path: string, query: WireParams | undefined, auth: CallAuth, envelope: EnvelopeKind, parse: ResultParser<T>): Promise<T> {
    return this.#adapter.call(this.#spec('GET', baseUrl, path, query, undefined, auth, envelope, true), parse);
  }

  /** A SIGNED call on the main host: GET parameters in the query, POST parameters in the body. */
  #signed<T>(method: 'GET' | 'POST', path: string, params: WireParams, options: SignedOptions, parse: ResultParser<T>, clientId?: string): Promise<T> {
    const recvWindow = options.recvWindow === undefined ? undefined : checkRecvWindow(options.recvWindow);
    const isGet = method === 'GET';
    return this.#adapter.call(
      this.#spec(method, this.#hosts.baseUrl, path, isGet ? params : undefined, isGet ? undefined : params, 'signed', 'open', isGet, {
        ...(recvWindow !== undefined ? { recvWindow } : {}),
        ...(clientId !== undefined ? { clientId } : {}),
      }),
      parse,
    );
  }

  #market<T>(endpoint: MarketEndpoint, p: { symbol: string; symbolType: SymbolTypeCode }, extra: WireParams, parse: ResultParser<T>): Promise<T> {
    requiredText('symbol', p.symbol, 50);
    if (p.symbolType !== 1 && p.symbolType !== 2 && p.symbolType !== 3) throw new ValidationError('symbolType', p.symbolType, 'must be 1, 2 or 3');
    const route = routeMarket(this.#hosts, endpoint, p.symbol, p.symbolType);
    // The type 1 market host answers without the open envelope (recorded real answers); the
    // other hosts wrap it. Both shapes are accepted everywhere, failure envelopes still fail.
    return this.#get(route.baseUrl, route.path, { symbol: route.symbol, ...extra }, 'none', 'open-optional', parse);
  }
}

/** Query of the two wallet history endpoints, which share their parameters; `status` by name. */
function walletHistoryQuery<N extends string>(
  params: { asset?: string; status?: N; fromId?: number; startTime?: number; endTime?: number },
  statuses: Readonly<Record<N, number>>,
): WireParams {
  timeRange(params.startTime, params.endTime);
  if (params.status !== undefined && !Object.prototype.hasOwnProperty.call(statuses, params.status)) {
    throw new ValidationError('status', params.status, `must be one of ${Object.keys(statuses).join(', ')}`);
  }
  return {
    asset: text('asset', params.asset, 50, true),
    status: params.status === undefined ? undefined : statuses[params.status],
    fromId: optLong('fromId', params.fromId),
    startTime: params.startTime,
    endTime: params.endTime,
  };
}

function listenKeyPath(symbolType: 1 | 3): string {
  const p = (LISTEN_KEY_PATH as Record<number, string | undefined>)[symbolType];
  if (p === undefined) throw new ValidationError('symbolType', symbolType, 'listen keys exist for symbol types 1 and 3 (type 2 has no user data stream)');
  return p;
}
