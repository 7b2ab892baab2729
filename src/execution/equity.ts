/**
 * The account's equity in one quote asset. The run values everything in the quote asset of its
 * first configured symbol (USDT for BTC_USDT, IDR for BTC_IDR): that asset counts at 1, and any
 * other asset at the run's mark of its pair with that quote (BTC at BTC_USDT's), the one mark the
 * run uses for unrealized PnL (marks.ts). An asset with no such pair in the run, or no price yet,
 * is listed as unvalued and left out of the sum rather than guessed. Exact decimals.
 */
import { Decimal, ZERO } from '../core/decimal.js';
import type { Balance } from '../core/types.js';

/** Equity and how it was reached. */
export interface Equity {
  readonly quote: string;
  /** Sum of the valued assets, free plus locked, in `quote`. */
  readonly value: Decimal;
  /** The price each valued asset counted at. */
  readonly prices: Readonly<Record<string, Decimal>>;
  /** Assets held that had no price in `quote`. */
  readonly unvalued: readonly string[];
}

/** Values `balances` in `quote`; `price(asset)` is the asset's price in `quote` (undefined: none). */
export function equityIn(quote: string, balances: readonly Balance[], price: (asset: string) => Decimal | undefined): Equity {
  let value = ZERO;
  const prices: Record<string, Decimal> = {};
  const unvalued: string[] = [];
  for (const b of balances) {
    const total = b.free.plus(b.locked);
    if (total.isZero()) continue;
    const p = b.asset === quote ? new Decimal(1) : price(b.asset);
    if (p === undefined) {
      unvalued.push(b.asset);
      continue;
    }
    prices[b.asset] = p;
    value = value.plus(total.mul(p));
  }
  return { quote, value, prices, unvalued };
}
