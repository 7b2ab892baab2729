/**
 * Average entry price per strategy and symbol from fills, to split PnL into realized and
 * unrealized. The mark is the one the positions use; unrealized is the position at the mark less
 * its cost (position x (mark - average entry)), realized is the rest of the PnL (cash plus the
 * position at the mark), so the two always add up to the PnL shown everywhere else. A fill that
 * adds to a position moves the average; one that reduces it leaves the average; one that flips it
 * starts the new side at its price. Exact decimals.
 */
import { ZERO, type Decimal } from '../core/decimal.js';
import type { PositionView } from './source.js';
import { positionPnl } from './views.js';

/** The fields of a fill this reads. */
export interface CostFill {
  readonly strategy: string;
  readonly symbol: string;
  readonly side: string;
  readonly price: Decimal;
  readonly qty: Decimal;
}

/** Running average entry prices. */
export class CostBasis {
  readonly #books = new Map<string, { position: Decimal; avg: Decimal }>();

  /** Folds one fill in. */
  add(f: CostFill): void {
    const key = `${f.strategy} ${f.symbol}`;
    const b = this.#books.get(key) ?? { position: ZERO, avg: ZERO };
    const signed = f.side === 'BUY' ? f.qty : f.qty.neg();
    const next = b.position.plus(signed);
    if (b.position.isZero() || b.position.isNegative() === signed.isNegative()) {
      // Adding to the position (or opening it): a quantity-weighted average.
      b.avg = next.isZero() ? ZERO : b.avg.mul(b.position.abs()).plus(f.price.mul(f.qty)).div(next.abs());
    } else if (!next.isZero() && next.isNegative() !== b.position.isNegative()) {
      b.avg = f.price;
    }
    b.position = next;
    this.#books.set(key, b);
  }

  /**
   * Realized and unrealized PnL of a position, or undefined when its entry price is not known
   * (no mark, or a position carried from before this process saw its fills).
   */
  split(p: PositionView): { realized: Decimal; unrealized: Decimal } | undefined {
    if (p.mark === undefined) return undefined;
    const total = positionPnl(p);
    if (p.position.isZero()) return { realized: total, unrealized: ZERO };
    const b = this.#books.get(`${p.strategy} ${p.symbol}`);
    if (b === undefined || b.position.isZero() || b.position.isNegative() !== p.position.isNegative()) return undefined;
    const unrealized = p.position.mul(p.mark.minus(b.avg));
    return { realized: total.minus(unrealized), unrealized };
  }
}
