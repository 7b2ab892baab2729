/**
 * A balance or position moved by fills: plus/minus one amount at a time from a starting value,
 * kept as an exact running sum (DecimalSum) so a fill builds no Decimal; the value is built when
 * read (the risk check reads a few per place, fills move several per fill).
 */
import { Decimal } from '../core/decimal.js';
import { DecimalSum } from '../core/decimalSum.js';

/**
 * Reads as `start.plus(x1).minus(x2)...` (value and digits): DecimalSum equals adding one by one
 * from 0, and 0 + start is start itself unless start has more than 40 digits (the addition would
 * round it) or is a negative zero (it would come out positive); such a start is kept as a plain
 * Decimal and moved with plus/minus.
 */
export class RunningAmount {
  #plain: Decimal | undefined;
  readonly #sum = new DecimalSum();

  constructor(start?: Decimal) {
    if (start === undefined) return;
    if (start.sd() > Decimal.precision || (start.isZero() && start.isNegative())) this.#plain = start;
    else this.#sum.add(start);
  }

  /** The current value. */
  get value(): Decimal {
    return this.#plain ?? this.#sum.value;
  }

  /**
   * floor((value - o) x 10^scale) without a Decimal (o absent: 0), +-Infinity from 2^52 on, NaN
   * when it cannot be had from integers (see DecimalSum.floorDiff; a plain start is never read so).
   */
  floorMinus(o: DecimalSum | undefined, scale: number): number {
    return this.#plain !== undefined ? NaN : this.#sum.floorDiff(o, scale);
  }

  /** Adds `x`. */
  add(x: Decimal): void {
    if (this.#plain !== undefined) this.#plain = this.#plain.plus(x);
    else this.#sum.add(x);
  }

  /** Subtracts `x`. */
  sub(x: Decimal): void {
    if (this.#plain !== undefined) this.#plain = this.#plain.minus(x);
    else this.#sum.sub(x);
  }
}
