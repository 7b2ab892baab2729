/**
 * The venue of a `kancil run`, the one part that differs by mode: live, the order router over the
 * open API (legacy fallback) with the user data streams; paper, the matching engine following the
 * live books through the simulated venue, behind the same order tracker. Both answer the pipeline
 * as a reconciling venue.
 */
import type { Bus } from '../bus/Bus.js';
import type { Venue } from '../bus/venue.js';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { ExchangeFilters } from '../core/filters.js';
import type { SymbolInfo } from '../core/types.js';
import { LegacyClient } from '../exchange/legacy/LegacyClient.js';
import { TimeNonceStore } from '../exchange/legacy/NonceStore.js';
import type { OpenClient } from '../exchange/open/OpenClient.js';
import { BalanceSource, type LiveBalances } from '../execution/balances.js';
import { legacyPort } from '../execution/legacyAdapter.js';
import { openPort } from '../execution/openPort.js';
import { OrderRouter } from '../execution/OrderRouter.js';
import type { OrderTracker } from '../execution/OrderTracker.js';
import type { ReconcilingVenue } from '../execution/pipeline.js';
import type { ReferencePrices } from '../execution/ReferencePrices.js';
import type { LiveOrderView } from '../execution/riskGate.js';
import { TrackedVenue } from '../execution/TrackedVenue.js';
import type { Ledger } from '../store/Ledger.js';
import type { Cleanup } from './cleanup.js';
import { paperVenue, type PaperParts } from './runSessionPaper.js';
import type { RunSessionOptions } from './runSessionOptions.js';
import type { RunFailure } from './runFailure.js';
import { optional, settleMsOf } from './runSetup.js';
import { discoverWsApiUrl, userStreams, type UserStream } from './userStream.js';

/** The venue of a run and what the rest of the run reads of it. */
export interface RunVenue {
  /** Where accepted intents go, and what reconciles on reconcileNeeded. */
  readonly venue: Venue & ReconcilingVenue;
  /** Live: the order router. */
  readonly router: OrderRouter | undefined;
  /** Live: the legacy client, when credentials for it are set. */
  readonly legacy: LegacyClient | undefined;
  /** Paper: the simulated venue behind the tracker (what start-up reconciliation closes). */
  readonly tracked: TrackedVenue | undefined;
  /** Paper: the engine, the simulated venue, its scheduler and the own orders it shows. */
  readonly sim: PaperParts | undefined;
  /** Live: the user data streams (started once the market streams are). */
  readonly user: readonly UserStream[];
  /** Every live order of the account this run knows, as the exchange counts them. */
  readonly liveOrders: () => readonly LiveOrderView[];
}

/** What both venues are built from. */
export interface VenueInputs {
  readonly o: RunSessionOptions;
  readonly bus: Bus;
  readonly clock: Clock;
  readonly ledger: Ledger;
  readonly open: OpenClient;
  readonly tracker: OrderTracker;
  readonly balances: LiveBalances;
  readonly symbols: readonly SymbolInfo[];
  readonly refs: ReferencePrices;
  readonly exchangeFilters: ExchangeFilters;
  readonly cleanup: Cleanup;
  /** The run's failure: an error nothing else could catch stops the run in order. */
  readonly failure: RunFailure;
}

/** The live venue: the order router, the legacy fallback and the user data streams. */
export async function liveVenue(v: VenueInputs): Promise<RunVenue> {
  const { o, bus, clock, ledger, open, tracker, symbols, cleanup } = v;
  const { config: cfg, endpoints: ep, credentials: cr, log } = o;
  if (!cr.apiKey || !cr.apiSecret) throw new ConfigError(cfg.file, 'mode', 'live', 'live mode needs KANCIL_API_KEY and KANCIL_API_SECRET in the environment');
  let legacy: LegacyClient | undefined;
  if (ep.legacy_base_url && cr.legacyKey && cr.legacySecret) {
    const l = new LegacyClient({ baseUrl: ep.legacy_base_url, apiKey: cr.legacyKey, apiSecret: cr.legacySecret, timeoutMs: cfg.exchange?.timeoutMs ?? 10_000, nonceStore: cfg.storage.path === ':memory:' ? new TimeNonceStore(clock) : `${cfg.storage.path}.nonce` });
    legacy = l;
    cleanup.push(() => l.close());
  }
  // The WebSocket API address the exchange publishes, when the config names none.
  const wsApiUrl = ep.ws_api_url ?? (symbols.some((s) => s.type === 1) ? await discoverWsApiUrl(open, log) : undefined);
  const chosen = userStreams({ ...ep, ...(wsApiUrl !== undefined ? { ws_api_url: wsApiUrl } : {}) }, open, symbols, log);
  const user = chosen.streams;
  // Orders of the other symbol types (type 2 has no user stream at all) are polled instead.
  const unstreamed = symbols.filter((s) => !chosen.covers.has(s.type as 1 | 3)).map((s) => s.symbol);
  if (unstreamed.length > 0) log.info({ symbols: unstreamed }, 'no user data stream reports these symbols; their orders are polled');
  const router = new OrderRouter({
    open: openPort(open),
    ...(legacy ? { legacy: legacyPort(legacy) } : {}),
    tracker,
    ledger,
    clock,
    log: log.child({ part: 'router' }),
    symbols: symbols.map((s) => s.symbol),
    symbolInfo: new Map(symbols.map((s) => [s.symbol, s])),
    settleMs: settleMsOf(cfg),
    unstreamedSymbols: unstreamed,
    timeOffsetMs: () => open.timeOffsetMs,
    ...optional('pollMs', o.router?.pollMs),
    ...optional('cancelRetryMs', o.router?.cancelRetryMs),
    onBalances: (b) => v.balances.update(BalanceSource.REST, b, true),
    onTaskFailure: (err, where) => v.failure.report(err, where),
  });
  cleanup.push(
    () => router.stop(),
    async () => {
      for (const u of user) await u.close();
    },
  );
  for (const u of user) {
    bus.attach(u.events$);
    bus.attach(u.status$);
  }
  // As the exchange counts them: the account's open orders this bot did not place count too.
  const liveOrders = (): readonly LiveOrderView[] => (router.untrackedOpenOrders.length > 0 ? [...tracker.liveOrders(), ...router.untrackedOpenOrders] : tracker.liveOrders());
  return { venue: router, router, legacy, tracked: undefined, sim: undefined, user, liveOrders };
}

/** The paper venue: the matching engine behind the order tracker, funded as `paper` says. */
export function paperRunVenue(v: VenueInputs): RunVenue {
  const { refs, tracker } = v;
  const ranges = new Map(refs.priceRanges.map((r) => [r.symbol, r]));
  const sim = paperVenue({ cfg: v.o.config, bus: v.bus, clock: v.clock, symbols: v.symbols, ranges, referencePrice: (s) => refs.referencePrice(s), exchangeFilters: v.exchangeFilters });
  v.balances.update(BalanceSource.SIM, sim.venue.balances(), true);
  v.cleanup.push(() => sim.scheduler.cancelAll());
  const tracked = new TrackedVenue(sim.venue, tracker);
  return { venue: tracked, router: undefined, legacy: undefined, tracked, sim, user: [], liveOrders: () => tracker.liveOrders() };
}
