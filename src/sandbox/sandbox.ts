/**
 * startSandbox: the whole local exchange in-process. One HTTP server per host of the spec's
 * placeholder table (base, market, depth, three stream hosts, WebSocket API, legacy) plus the
 * admin endpoint, all on the configured address (127.0.0.1, port 0 = ephemeral). stop() closes
 * every socket and clears every timer.
 */
import { type Clock, parseDecimal, systemClock } from '../core/index.js';
import type { MatchingEngine } from '../sim/index.js';
import { adminHandler } from './admin.js';
import type { MarketActivity, SandboxAccount, SandboxConfig } from './config.js';
import { ExchangeState } from './exchange-state.js';
import { FaultController } from './faults.js';
import { SandboxFailures } from './failures.js';
import { type Host, startHost } from './http-host.js';
import type { MarketFeed } from './market-feed.js';
import type { RecordingStream } from './recording-stream.js';
import type { ReferencePrices } from './market-routes.js';
import type { Waiter } from './open-host.js';
import { LegacyLimiter, OrderCounter, WeightLimiter } from './rate-limits.js';
import { faultHooks } from './sandbox-fault-hooks.js';
import { type ApiHosts, plainErrorOf, startApiHosts } from './sandbox-hosts.js';
import { prepareMarket } from './sandbox-market.js';
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

/** Starts the admin endpoint: faults, reference prices and a status view. */
function startAdminHost(config: SandboxConfig, faults: FaultController, setReferencePrice: (symbol: string, price: string | null) => void, streams: StreamServer, feeds: readonly MarketFeed[], registry: UserStreamRegistry, clock: Clock): Promise<Host> {
  // The admin endpoint can break things on purpose, so it listens on loopback whatever the config says.
  return startHost(
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
    plainErrorOf(clock),
  );
}

/** The URLs of the started hosts under the spec's placeholder names. */
function urlsOf(host: string, h: ApiHosts, admin: Host, wsApiUrl: string): SandboxUrls {
  const http = (x: Host): string => `http://${host}:${x.port}`;
  const ws = (x: Host): string => `ws://${host}:${x.port}`;
  return {
    base_url: http(h.base),
    market_url: http(h.market),
    depth_url: http(h.depth),
    stream_url: ws(h.stream),
    stream_url_next: ws(h.streamNext),
    stream_url_new: ws(h.streamNew),
    ws_api_url: wsApiUrl,
    legacy_base_url: http(h.legacy),
    admin_url: `http://127.0.0.1:${admin.port}`,
  };
}

/** Starts a sandbox from a resolved configuration: state and limits, hosts, admin, fault actions, market. */
export async function startSandbox(config: SandboxConfig, options: SandboxOptions = {}): Promise<RunningSandbox> {
  const clock = options.clock ?? systemClock;
  const state = new ExchangeState(config, clock);
  const faults = new FaultController();
  const registry = new UserStreamRegistry(clock);
  const weights = new WeightLimiter({ weightLimits: config.limits.requestWeight, banBaseSec: config.limits.banBaseSec, banGraceMs: config.limits.banGraceMs }, clock);
  const waiter = createWaiter();
  const refs: ReferencePrices = new Map();
  for (const s of config.symbols) if (s.referencePrice !== undefined) refs.set(s.info.symbol, { price: s.referencePrice === null ? null : s.referencePrice.toFixed(), time: clock.now() });
  const hosts: Host[] = [];
  let wsApiUrl = '';

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
    const keys = new Map<string, SandboxAccount>(config.accounts.map((a) => [a.apiKey, a]));
    const orderCounter = new OrderCounter(config.limits.orders, clock);
    const legacyLimiter = new LegacyLimiter(config.limits.legacyPerEndpointPerMinute, clock);
    const hooks = faultHooks(faults, state);
    const api = await startApiHosts({ config, clock, state, faults, hooks, registry, weights, orderCounter, legacyLimiter, waiter, keys, refs, streams, wsApi, wsApiUrl: () => wsApiUrl, hosts });
    const setReferencePrice = (symbol: string, price: string | null): void => {
      if (!state.symbols.has(symbol)) throw new RangeError(`unknown symbol ${symbol}`);
      state.exec((e, now) => e.setReferencePrice(symbol, price === null ? null : parseDecimal('price', price), now));
      refs.set(symbol, { price, time: clock.now() });
    };
    const admin = await startAdminHost(config, faults, setReferencePrice, streams, feeds, registry, clock);
    hosts.push(admin);
    wsApiUrl = `ws://${config.host}:${api.wsApi.port}/ws-api/v3`;
    const urls = urlsOf(config.host, api, admin, wsApiUrl);
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
    const { startMarket, marketEnded } = await prepareMarket(options.quiet ? [] : config.market, state, clock, streams, feeds, recordings, () => stopped);
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
