/**
 * The run's watch on the exchange itself (src/execution/liveness.ts): every stream message counts
 * as a sign of life, a REST probe asks when the streams go quiet, and an exchange that answers
 * neither halts trading (the trading-state machine's `exchange` input), with an error line and a
 * journal row `exchangeUnreachable`; when it answers again, a row `exchangeBack` with how long it
 * was gone, and (live) a reconciliation, since reports may have been lost meanwhile.
 */
import type { Bus } from '../bus/Bus.js';
import type { BusEventType } from '../bus/events.js';
import type { Clock } from '../core/clock.js';
import type { ExecLogger } from '../execution/log.js';
import { ExchangeLiveness } from '../execution/liveness.js';
import type { TradingStateMachine } from '../risk/tradingState.js';
import type { Ledger } from '../store/Ledger.js';

/** Events only the exchange's streams bring (a paper run's user data comes from its simulator). */
const MARKET: ReadonlySet<BusEventType> = new Set(['trade', 'aggTrade', 'kline', 'miniTicker', 'depthDiff', 'partialDepth', 'bookTicker']);
const USER: ReadonlySet<BusEventType> = new Set(['executionReport', 'accountPosition', 'streamTerminated']);

/** What the watch needs of the run. */
export interface ExchangeWatchOptions {
  readonly bus: Bus;
  readonly states: TradingStateMachine;
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly log: ExecLogger;
  /** The REST probe (server time). */
  readonly probe: () => Promise<unknown>;
  /** run.exchangeSilenceSec in ms; 0 turns the watch off. */
  readonly silenceMs: number;
  /** Live: user-data events count too, and a reconciliation follows an outage. */
  readonly live: boolean;
}

/** Starts the watch; returns its stop. */
export function watchExchange(o: ExchangeWatchOptions): () => void {
  if (o.silenceMs <= 0) return () => undefined;
  const counted = o.live ? new Set([...MARKET, ...USER]) : MARKET;
  // A probe sent before the stop may be answered after it, when the ledger may be closed.
  let stopped = false;
  const liveness = new ExchangeLiveness({
    silenceMs: o.silenceMs,
    probe: o.probe,
    now: () => o.clock.now(),
    onChange: (c) => {
      if (stopped) return;
      const now = o.clock.now();
      if (c.down) {
        journal(o, now, 'exchangeUnreachable', { reason: c.reason, silentMs: c.silentMs });
        o.log.error({ silentMs: c.silentMs }, `${c.reason}; trading halted`);
        o.states.setExchangeUnreachable(c.reason, now);
        return;
      }
      journal(o, now, 'exchangeBack', { reason: c.reason, downMs: c.forMs });
      o.log.warn({ downMs: c.forMs }, c.reason);
      if (o.live) o.bus.publish({ type: 'reconcileNeeded', E: now, reason: c.reason });
      o.states.setExchangeUnreachable(undefined, now);
    },
  });
  const unlisten = o.bus.listen((e) => {
    if (counted.has(e.type)) liveness.heard();
  });
  const timer = setInterval(() => liveness.check(), Math.min(1000, Math.max(50, o.silenceMs / 10)));
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
    unlisten();
  };
}

/**
 * Journals a change of the exchange's reachability. A write that fails (a full disk) must neither
 * keep trading from halting nor throw out of the check's timer (a crash, orders resting): it is
 * logged, and the ledger tells the run (onWriteFailure), which stops it in order.
 */
function journal(o: ExchangeWatchOptions, now: number, kind: string, data: Record<string, unknown>): void {
  try {
    o.ledger.journal(now, kind, data);
  } catch (err) {
    o.log.error({ kind, err: err instanceof Error ? err.message : String(err) }, 'could not journal the exchange watch');
  }
}
