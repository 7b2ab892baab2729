/**
 * startSandbox: the whole local exchange in-process. One HTTP server per host of the spec's
 * placeholder table (base, market, depth, three stream hosts, WebSocket API, legacy) plus the
 * admin endpoint, all on the configured address (127.0.0.1, port 0 = ephemeral). stop() closes
 * every socket and clears every timer.
 */
import { type Clock, ExchangeError, parseDecimal, systemClock } from '../core/index.js';
import type { MatchingEngine } from '../sim/index.js';
import { adminHandler } from './admin.js';
import type { MarketActivity, SandboxAccount, SandboxConfig } from './config.js';
import { ExchangeState } from './exchange-state.js';
import { FaultController } from './faults.js';
import { SandboxFailures } from './failures.js';
import { DropConnection, type Host, type Reply, startHost } from './http-host.js';
import { legacyErrorReply, legacyHandler } from './legacy-api.js';
import { type MarketFeed, startFeed } from './market-feed.js';
import { RecordingStream } from './recording-stream.js';
import { marketHostExtras, marketRoutes, type ReferencePrices } from './market-routes.js';
import { openHostHandler, type Waiter } from './open-host.js';
import { openRoutes } from './open-routes.js';
import { errorReply } from './open-wire.js';
import { ApiCode } from './params.js';
import { LegacyLimiter, OrderCounter, WeightLimiter } from './rate-limits.js';
import { StreamServer } from './stream-server.js';
import { UserStreamRegistry } from './user-streams.js';
import { WsApiServer } from './ws-api.js';

/** Every address a client needs, under the spec's placeholder names, plus the admin endpoint. */
export interface SandboxUrls {
  readonly base_url: string;
  readonly market_url: string;
  readonly depth_url: string;
  readonly stream_url: string;
  readonly stream_url_next: string;
  readonly stream_url_new: string;
  readonly ws_api_url: string;
  readonly legacy_base_url: string;
  readonly admin_url: string;
}

/** A configured test account as clients see it. */
export interface SandboxCredentials {
  readonly id: string;
  readonly apiKey: string;
  readonly secret: string;
  readonly legacyApiKey: string;
  readonly legacySecret: string;
}

/** A running sandbox. */
export interface RunningSandbox {
  readonly urls: SandboxUrls;
  readonly accounts: readonly SandboxCredentials[];
  readonly faults: FaultController;
  readonly engine: MatchingEngine;
  readonly state: ExchangeState;
  readonly streams: StreamServer;
  readonly registry: UserStreamRegistry;
  readonly weights: WeightLimiter;
  /** The running market activity (replay or synthetic feeds); stop() one to freeze its book. */
  readonly feeds: readonly MarketFeed[];
  /**
   * Settles when every feed has ended (replays played once, all at their last event), so no book
   * moves any more; undefined when some feed never ends (looped or synthetic) or none runs.
   */
  readonly marketEnded: Promise<void> | undefined;
  /**
   * Callbacks of the sandbox that threw (a bug, or a fault injected through /faults/crash): counted
   * and reported instead of killing the process; `failures.failed` settles at the first one.
   */
  readonly failures: SandboxFailures;
  /**
   * Starts the configured market activity held back by `holdMarket` (at once; later calls do
   * nothing). A replay starts at its snapshot when this is called.
   */
  startMarket(): void;
  /** Applies listen key and token expiry now (it also runs every 250 ms). */
  sweep(): void;
  /** Sets or clears a symbol's reference price (PRICE_RANGE rule and /api/v3/referencePrice). */
  setReferencePrice(symbol: string, price: string | null): void;
  stop(): Promise<void>;
}

/** Options for tests. */
export interface SandboxOptions {
  /** Time source for signatures, listen keys, tokens, limits and events (default: wall clock). */
  readonly clock?: Clock;
  /** Start no market activity even if configured (tests that want a quiet book). */
  readonly quiet?: boolean;
  /**
   * Start the market activity only when `startMarket()` is called: a client that must see a
   * replay from its first instant (the parity suite) connects and subscribes first.
   */
  readonly holdMarket?: boolean;
}

function createWaiter(): Waiter & { stop(): void } {
  const timers = new Set<NodeJS.Timeout>();
  const pending = new Set<() => void>();
  let stopped = false;
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        if (stopped) return resolve();
        const t = setTimeout(() => {
          timers.delete(t);
          pending.delete(resolve);
          resolve();
        }, ms);
        timers.add(t);
        pending.add(resolve);
      }),
    forever: () =>
      new Promise<void>((resolve) => {
        if (stopped) return resolve();
        pending.add(resolve);
      }),
    stop: () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      for (const r of pending) r();
      timers.clear();
      pending.clear();
    },
  };
}

/** Starts a sandbox from a resolved configuration. */
export async function startSandbox(config: SandboxConfig, options: SandboxOptions = {}): Promise<RunningSandbox> {
  const clock = options.clock ?? systemClock;
  const state = new ExchangeState(config, clock);
  const faults = new FaultController();
  const registry = new UserStreamRegistry(clock);
  const weights = new WeightLimiter({ weightLimits: config.limits.requestWeight, banBaseSec: config.limits.banBaseSec, banGraceMs: config.limits.banGraceMs }, clock);
  const orderCounter = new OrderCounter(config.limits.orders, clock);
  const legacyLimiter = new LegacyLimiter(config.limits.legacyPerEndpointPerMinute, clock);
  const waiter = createWaiter();
  const refs: ReferencePrices = new Map();
  for (const s of config.symbols) if (s.referencePrice !== undefined) refs.set(s.info.symbol, { price: s.referencePrice === null ? null : s.referencePrice.toFixed(), time: clock.now() });
  const keys = new Map<string, SandboxAccount>(config.accounts.map((a) => [a.apiKey, a]));
  const hosts: Host[] = [];
  const bind = (port: number): { host: string; port: number } => ({ host: config.host, port });
  const plainError = (e: ExchangeError): Reply => errorReply(e, 'msg', clock.now());
  const injected5xx = (status: number, path: string, scope: 'open' | 'legacy'): ExchangeError =>
    new ExchangeError(status, scope === 'open' ? ApiCode.UNKNOWN : 'internal_error', 'Internal error; unable to process your request. Please try again.', path);
  const orderFault = (when: 'before' | 'after', path: string, scope: 'open' | 'legacy'): void => {
    const status = faults.orderFailure(scope, when);
    if (status !== undefined) throw injected5xx(status, path, scope);
  };
  const cancelFault = (when: 'before' | 'after', path: string, scope: 'open' | 'legacy'): void => {
    const action = faults.cancelFailure(scope, when);
    if (action === undefined) return;
    throw action.kind === 'drop' ? new DropConnection() : injected5xx(action.status, path, scope);
  };
  const rejectFault = (accountId: string, orderId: string): void => {
    const reason = faults.takeRejection();
    if (reason !== undefined) state.exec((e, now) => e.rejectAccepted({ accountId, orderId }, reason, now));
  };
  let wsApiUrl = '';
  const openHost = (name: string, port: number, routes: Parameters<typeof openHostHandler>[0]['routes']): Promise<Host> =>
    // Answers given before routing (malformed path) carry the weight headers too: "on every response".
    startHost(name, bind(port), openHostHandler({ routes, limiter: weights, orderCounter, faults, keys, clock, waiter }), (e, _ctx, ip) => errorReply(e, 'msg', clock.now(), weights.headersOf(ip)));

  const failures = new SandboxFailures();
  const streams = new StreamServer(state, registry, faults, clock, config.websocket, failures);
  const wsApi = new WsApiServer(registry, streams, clock, config.websocket, config.limits.maxWsApiSubscriptions, failures);
  const feeds: MarketFeed[] = [];
  /** Replays' recordings, opened (and checked) before the sandbox answers; each feed then reads its own. */
  const recordings = new Map<MarketActivity, RecordingStream>();
  const sweep = (): void => {
    const expired = registry.sweep();
    for (const k of expired.listenKeys) streams.closeListenKey(k);
    wsApi.terminateTokens(expired.tokens);
  };
  const sweeper = setInterval(failures.guard('listen key sweep', sweep), 250);
  const notFound = (): Reply => ({ status: 404, body: { code: ApiCode.NOT_FOUND, msg: 'Not found' } });
  const shutdown = async (): Promise<void> => {
    for (const f of feeds) f.stop();
    for (const r of recordings.values()) r.close();
    clearInterval(sweeper);
    waiter.stop();
    await streams.close();
    await wsApi.close();
    await Promise.all(hosts.map((h) => h.close()));
  };
  try {
    const base = await openHost('base', config.ports.base, [
      ...openRoutes({ state, streams: registry, wsApiUrl: () => wsApiUrl, orderFault: (w, p) => orderFault(w, p, 'open'), cancelFault: (w, p) => cancelFault(w, p, 'open'), rejectFault, processingFault: (id) => faults.takeProcessing(id) }),
      // Type 3 depth, aggTrades and klines moved to {depth_url} (spec versioning); trades stay here.
      ...marketRoutes(state, '/open/v1/market', [2], true, false, [2, 3]),
    ]);
    hosts.push(base);
    hosts.push(await openHost('market', config.ports.market, [...marketRoutes(state, '/api/v3', [1], false, true), ...marketHostExtras(state, refs)]));
    hosts.push(await openHost('depth', config.ports.depth, marketRoutes(state, '/api/v1', [3], true, false)));
    const streamHost = async (name: string, port: number, types: readonly (1 | 2 | 3)[]): Promise<Host> => {
      const h = await startHost(name, bind(port), notFound, plainError);
      streams.attach(name, h.server, types);
      hosts.push(h);
      return h;
    };
    // User data for type 1 is on {stream_url}; type 3 listen keys (private-n) are served on {stream_url_new}.
    const s1 = await streamHost('stream', config.ports.stream, [1]);
    const s2 = await streamHost('streamNext', config.ports.streamNext, [2]);
    const s3 = await streamHost('streamNew', config.ports.streamNew, [3]);
    const api = await startHost('wsApi', bind(config.ports.wsApi), notFound, plainError);
    wsApi.attach(api.server);
    hosts.push(api);
    const legacy = await startHost('legacy', bind(config.ports.legacy), legacyHandler({ state, faults, limiter: legacyLimiter, clock, waiter, orderFault: (w, p) => orderFault(w, p, 'legacy'), cancelFault: (w, p) => cancelFault(w, p, 'legacy') }), legacyErrorReply);
    hosts.push(legacy);
    const setReferencePrice = (symbol: string, price: string | null): void => {
      if (!state.symbols.has(symbol)) throw new RangeError(`unknown symbol ${symbol}`);
      state.exec((e, now) => e.setReferencePrice(symbol, price === null ? null : parseDecimal('price', price), now));
      refs.set(symbol, { price, time: clock.now() });
    };
    // The admin endpoint can break things on purpose, so it listens on loopback whatever the config says.
    const admin = await startHost(
      'admin',
      { host: '127.0.0.1', port: config.ports.admin },
      adminHandler({
        faults,
        setReferencePrice,
        status: () => ({
          connections: streams.connections(),
          feeds: feeds.map((f) => ({ symbol: f.symbol, applied: f.applied, adjusted: f.adjusted, failed: f.failed, lastError: f.lastError ?? null })),
          listenKeys: Object.fromEntries(config.accounts.map((a) => [a.id, registry.listenKeysOf(a.id)])),
        }),
      }),
      plainError,
    );
    hosts.push(admin);
    const http = (h: Host): string => `http://${config.host}:${h.port}`;
    const ws = (h: Host): string => `ws://${config.host}:${h.port}`;
    wsApiUrl = `${ws(api)}/ws-api/v3`;
    const urls: SandboxUrls = {
      base_url: http(base),
      market_url: http(hosts[1] as Host),
      depth_url: http(hosts[2] as Host),
      stream_url: ws(s1),
      stream_url_next: ws(s2),
      stream_url_new: ws(s3),
      ws_api_url: wsApiUrl,
      legacy_base_url: http(legacy),
      admin_url: `http://127.0.0.1:${admin.port}`,
    };
    faults.attach({
      dropConnections: (id) => streams.dropConnections(id) + (id === undefined ? wsApi.dropAll() : 0),
      expireListenKey: (k) => {
        const ok = registry.expireListenKey(k);
        sweep();
        return ok;
      },
      expireListenToken: (t) => {
        const ok = registry.expireToken(t);
        sweep();
        return ok;
      },
      forceRateLimit: (status, seconds) => weights.forceAll(status, seconds),
    });
    let stopped = false;
    const activity = options.quiet ? [] : config.market;
    for (const m of activity) if (m.kind === 'replay') recordings.set(m, await RecordingStream.open(m.file, m.sourceSymbol));
    // Known before the feeds start: a replay played once ends, a looped one or a synthetic flow never.
    const ends = activity.length > 0 && activity.every((m) => m.kind === 'replay' && !m.loop);
    let ended: () => void = () => undefined;
    const marketEnded = ends ? new Promise<void>((resolve) => (ended = resolve)) : undefined;
    let started = false;
    const startMarket = (): void => {
      if (started || stopped) return;
      started = true;
      for (const m of activity) feeds.push(startFeed(state, m, clock, recordings.get(m), () => streams.flushFastDepth()));
      if (ends) void Promise.all(feeds.map((f) => f.ended)).then(() => ended());
    };
    if (!options.holdMarket) startMarket();
    return {
      urls,
      accounts: config.accounts.map((a) => ({ id: a.id, apiKey: a.apiKey, secret: a.secret, legacyApiKey: a.legacyApiKey, legacySecret: a.legacySecret })),
      faults,
      engine: state.engine,
      state,
      streams,
      registry,
      weights,
      feeds,
      marketEnded,
      failures,
      startMarket,
      sweep,
      setReferencePrice,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await shutdown();
      },
    };
  } catch (e) {
    await shutdown();
    throw e;
  }
}
