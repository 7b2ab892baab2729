/**
 * The sandbox's hosts of the spec's placeholder table, started in order: base (open API and
 * market data), market, depth, the three stream hosts, the WebSocket API and legacy. Each host is
 * pushed to `hosts` as soon as it listens, so a failure part-way closes the ones already up.
 */
import type { Clock, ExchangeError } from '../core/index.js';
import type { SandboxAccount, SandboxConfig } from './config.js';
import type { ExchangeState } from './exchange-state.js';
import type { FaultController } from './faults.js';
import { type Host, type Reply, startHost } from './http-host.js';
import { legacyErrorReply, legacyHandler } from './legacy-api.js';
import { marketHostExtras, marketRoutes, type ReferencePrices } from './market-routes.js';
import { openHostHandler, type Waiter } from './open-host.js';
import { openRoutes } from './open-routes.js';
import { errorReply } from './open-wire.js';
import { ApiCode } from './params.js';
import type { LegacyLimiter, OrderCounter, WeightLimiter } from './rate-limits.js';
import type { FaultHooks } from './sandbox-fault-hooks.js';
import type { StreamServer } from './stream-server.js';
import type { UserStreamRegistry } from './user-streams.js';
import type { WsApiServer } from './ws-api.js';

/** What the hosts serve from. */
export interface HostDeps {
  readonly config: SandboxConfig;
  readonly clock: Clock;
  readonly state: ExchangeState;
  readonly faults: FaultController;
  readonly hooks: FaultHooks;
  readonly registry: UserStreamRegistry;
  readonly weights: WeightLimiter;
  readonly orderCounter: OrderCounter;
  readonly legacyLimiter: LegacyLimiter;
  readonly waiter: Waiter;
  readonly keys: ReadonlyMap<string, SandboxAccount>;
  readonly refs: ReferencePrices;
  readonly streams: StreamServer;
  readonly wsApi: WsApiServer;
  /** ws_api_url, known once the WebSocket API host listens. */
  wsApiUrl(): string;
  /** Every host started so far (the caller closes them). */
  readonly hosts: Host[];
}

/** The started hosts by placeholder. */
export interface ApiHosts {
  readonly base: Host;
  readonly market: Host;
  readonly depth: Host;
  readonly stream: Host;
  readonly streamNext: Host;
  readonly streamNew: Host;
  readonly wsApi: Host;
  readonly legacy: Host;
}

/** A plain error body (hosts without the open API's weight headers). */
export const plainErrorOf =
  (clock: Clock) =>
  (e: ExchangeError): Reply =>
    errorReply(e, 'msg', clock.now());

/** Starts every API host in order. */
export async function startApiHosts(d: HostDeps): Promise<ApiHosts> {
  const { config, clock, state, faults, hooks, registry, weights, streams, hosts } = d;
  const bind = (port: number): { host: string; port: number } => ({ host: config.host, port });
  const plainError = plainErrorOf(clock);
  const notFound = (): Reply => ({ status: 404, body: { code: ApiCode.NOT_FOUND, msg: 'Not found' } });
  const started = async (h: Promise<Host>): Promise<Host> => {
    const host = await h;
    hosts.push(host);
    return host;
  };
  const openHost = (name: string, port: number, routes: Parameters<typeof openHostHandler>[0]['routes']): Promise<Host> =>
    // Answers given before routing (malformed path) carry the weight headers too: "on every response".
    started(startHost(name, bind(port), openHostHandler({ routes, limiter: weights, orderCounter: d.orderCounter, faults, keys: d.keys, clock, waiter: d.waiter }), (e, _ctx, ip) => errorReply(e, 'msg', clock.now(), weights.headersOf(ip))));
  const base = await openHost('base', config.ports.base, [
    ...openRoutes({ state, streams: registry, wsApiUrl: d.wsApiUrl, orderFault: (w, p) => hooks.orderFault(w, p, 'open'), cancelFault: (w, p) => hooks.cancelFault(w, p, 'open'), rejectFault: hooks.rejectFault, processingFault: (id) => faults.takeProcessing(id) }),
    // Type 3 depth, aggTrades and klines moved to {depth_url} (spec versioning); trades stay here.
    ...marketRoutes(state, '/open/v1/market', [2], true, false, [2, 3]),
  ]);
  const market = await openHost('market', config.ports.market, [...marketRoutes(state, '/api/v3', [1], false, true), ...marketHostExtras(state, d.refs)]);
  const depth = await openHost('depth', config.ports.depth, marketRoutes(state, '/api/v1', [3], true, false));
  const streamHost = async (name: string, port: number, types: readonly (1 | 2 | 3)[]): Promise<Host> => {
    const h = await started(startHost(name, bind(port), notFound, plainError));
    streams.attach(name, h.server, types);
    return h;
  };
  // User data for type 1 is on {stream_url}; type 3 listen keys (private-n) are served on {stream_url_new}.
  const stream = await streamHost('stream', config.ports.stream, [1]);
  const streamNext = await streamHost('streamNext', config.ports.streamNext, [2]);
  const streamNew = await streamHost('streamNew', config.ports.streamNew, [3]);
  const wsApi = await started(startHost('wsApi', bind(config.ports.wsApi), notFound, plainError));
  d.wsApi.attach(wsApi.server);
  const legacy = await started(
    startHost('legacy', bind(config.ports.legacy), legacyHandler({ state, faults, limiter: d.legacyLimiter, clock, waiter: d.waiter, orderFault: (w, p) => hooks.orderFault(w, p, 'legacy'), cancelFault: (w, p) => hooks.cancelFault(w, p, 'legacy') }), legacyErrorReply),
  );
  return { base, market, depth, stream, streamNext, streamNew, wsApi, legacy };
}
