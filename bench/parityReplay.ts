/**
 * Replays one run's orders through one matching engine fed with the recording the way the sandbox
 * feeds its own (src/sandbox/market-feed.ts), each order and cancel at the point of the replay
 * where it reached its run's engine. Used by the parity suite (bench/parityRuns.ts) to tell the
 * two possible causes of a gap apart: when each mode's orders, replayed here, give that mode's
 * fills, the engines agree given the same orders, and the gap lies in which orders the strategy
 * sent and when (its decisions and what it knew when), not in the engine or its market.
 */
import { Decimal } from '../src/core/decimal.js';
import type { OrderSideName, OrderTypeName } from '../src/core/enums.js';
import type { SandboxConfig } from '../src/sandbox/config.js';
import { ExchangeState } from '../src/sandbox/exchange-state.js';
import { RecordedApplier } from '../src/sandbox/market-feed.js';
import type { RecordedEvent } from '../src/sandbox/recording.js';

/**
 * An order or cancel as it reached an engine: `before` is the first recorded receive ms it did not
 * meet (it met every recorded message received earlier and none later).
 */
export type EngineOp =
  | { readonly before: number; readonly kind: 'place'; readonly clientId: string; readonly side: OrderSideName; readonly type: OrderTypeName; readonly price: string; readonly quantity: string }
  | { readonly before: number; readonly kind: 'cancel'; readonly clientId: string };

/** An engine's reports as the parity suite notes them: what it needs to replay and to compare. */
export interface NotedReport {
  readonly x: string;
  readonly c: string;
  readonly C: string;
  readonly S: OrderSideName;
  readonly o: OrderTypeName;
  readonly p: string;
  readonly q: string;
  readonly l: string;
}

/**
 * Notes one engine report of a run: a NEW or REJECTED report is an order that reached the engine,
 * a CANCELED one a cancel, a TRADE one a fill (its quantity added to `filled`).
 */
export function noteReport(r: NotedReport, before: number, ops: EngineOp[], filled: Map<string, Decimal>): void {
  if (r.x === 'NEW' || r.x === 'REJECTED') ops.push({ before, kind: 'place', clientId: r.c, side: r.S, type: r.o, price: r.p, quantity: r.q });
  else if (r.x === 'CANCELED') ops.push({ before, kind: 'cancel', clientId: r.C || r.c });
  else if (r.x === 'TRADE') filled.set(r.c, (filled.get(r.c) ?? new Decimal(0)).plus(r.l));
}

/** Filled quantity per clientId of `ops` replayed from the recording's snapshot through one engine of `cfg` (its first symbol and account). */
export function replayOps(cfg: SandboxConfig, events: readonly RecordedEvent[], ops: readonly EngineOp[]): Map<string, Decimal> {
  let now = 0;
  const state = new ExchangeState(cfg, { now: () => now });
  const sym = cfg.symbols[0];
  const account = cfg.accounts[0];
  if (sym === undefined || account === undefined) throw new Error('the sandbox config needs a symbol and an account');
  const symbol = sym.info.symbol;
  const applier = new RecordedApplier(symbol, sym);
  const filled = new Map<string, Decimal>();
  state.onBatch((b) => {
    for (const e of b.events) if (e.type === 'executionReport' && e.x === 'TRADE') filled.set(e.c, (filled.get(e.c) ?? new Decimal(0)).plus(e.l));
  });
  const sorted = [...ops].sort((a, b) => a.before - b.before);
  let j = 0;
  const due = (upTo: number): void => {
    for (let op = sorted[j]; op !== undefined && op.before <= upTo; op = sorted[++j]) {
      const o = op;
      if (o.kind === 'cancel') state.exec((e, t) => e.cancelOrder({ accountId: account.id, symbol, clientId: o.clientId }, t));
      else state.exec((e, t) => e.placeOrder({ accountId: account.id, symbol, side: o.side, type: o.type, ...(o.type === 'MARKET' ? {} : { price: o.price }), quantity: o.quantity, clientId: o.clientId }, t));
    }
  };
  const start = events.findIndex((e) => e.kind === 'snapshot');
  for (const ev of events.slice(Math.max(0, start))) {
    due(ev.ms);
    now = ev.ms;
    state.exec((e, t) => applier.apply(e, ev, t));
  }
  due(Infinity);
  return filled;
}

/** How far `replayed` fills are from a run's own: the orders whose filled quantity differs, of all with a fill in either. */
export function fillsDiffer(own: ReadonlyMap<string, Decimal>, replayed: ReadonlyMap<string, Decimal>): { differ: number; orders: number } {
  const ids = new Set([...own.keys(), ...replayed.keys()]);
  let differ = 0;
  for (const id of ids) if (!(own.get(id) ?? new Decimal(0)).eq(replayed.get(id) ?? new Decimal(0))) differ++;
  return { differ, orders: ids.size };
}
