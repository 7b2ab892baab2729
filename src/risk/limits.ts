/** User limits the risk checker enforces (its own module so the bounds cache can read them without the checker's contract). */
import type { Decimal } from '../core/decimal.js';

/** User limits of one strategy (or of the whole run). Absent means unlimited. */
export interface UserLimits {
  /** Maximum notional (quote asset) of one order. */
  readonly maxOrderNotional?: Decimal;
  /** Maximum absolute net position per base asset, counting open orders on the same side. */
  readonly maxPosition?: Readonly<Record<string, Decimal>>;
  /** Maximum number of the strategy's own open orders. */
  readonly maxOpenOrders?: number;
  /** At most `count` placements within any `windowMs` sliding window. */
  readonly maxOrderRate?: { readonly count: number; readonly windowMs: number };
  /** Loss (positive quote amount) after which only exposure-reducing orders pass until the day rolls over. */
  readonly dailyLossLimit?: Decimal;
}
