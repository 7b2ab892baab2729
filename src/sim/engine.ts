/**
 * The matching engine: per-symbol books with price-time priority, accounts with free/locked
 * balances, every order rule of the spec. Pure: no timers, no I/O, no randomness, time passed in.
 *
 * Hot-path arithmetic is on scaled integers (see scaled.ts); balances are bigints at a per-asset
 * scale wide enough for exact notionals and commissions. The rules and the fill model are written
 * down in src/sim/README.md.
 *
 * The engine is one object whose methods are grouped by job into layers, each in its own file and
 * each extending the one below: engineBase (state, lookups), engineEvents (event delivery),
 * balances (locks, fills), matching (taking, self-trade prevention), stops (stop orders,
 * OCO), placing (order entry, cancels), queries (views), replayed (replayed liquidity). Layers
 * rather than separate objects: the hot paths call across them per event, and one object keeps
 * those calls plain method calls on one shape, with no extra indirection or allocation.
 */
import { EngineReplayed } from './replayed.js';

export { stopReached } from './stops.js';

/** The matching engine. See src/sim/README.md for the rules and the fill model. */
export class MatchingEngine extends EngineReplayed {}
