/**
 * A running sum of Decimals that builds no Decimal per term while the sum stays small (a safe
 * integer of units, or a bigint of at most 40 digits past that): the strategy book's balances,
 * positions and locks add tens of thousands of short exchange decimals, each a decimal.js
 * allocation otherwise, and the risk check reads free balances from it as integers (floorDiff).
 * In core so that every layer may use it.
 */
import { Decimal } from './decimal.js';
import { decimalToNumber, unpackDecimal, UNPACKED as term } from './decimalNumber.js';
import { POW10 as CORE_POW10 } from './pow10.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const BIG_MAX_SAFE = BigInt(MAX_SAFE);
/** Powers of ten as bigints, 10^0 ... 10^40: a wide-form sum stays below 10^40 units. */
const POW10N: readonly bigint[] = Array.from({ length: 41 }, (_, i) => 10n ** BigInt(i));
/** Bound of the wide form: a sum of at most 40 digits is what decimal.js computes exactly. */
const BIG_LIMIT = 10n ** 40n;
/** |value| from 2^52 on reads as +-Infinity in floorDiff (the risk checker's bounds do the same). */
const BIG_2_52 = 2n ** 52n;

/** decimal.js's tag of Decimal-like objects: its constructor copies s, e and d from any object carrying it. */
const DECIMAL_TAG = '[object Decimal]';
/** Digits per word of decimal.js's digit array. */
const LOG_BASE = 7;
/**
 * decimalOf's argument to the constructor, reused: the constructor copies s and e and slices d, so
 * neither the object nor its words need to be new (a Decimal per fill amount is built this way).
 */
const SCRATCH = { toStringTag: DECIMAL_TAG, s: 1, e: 0, d: [0] };
/** decimalOf's word arrays by length (1 to 4), filled in place; index 0 unused. */
const WORDS: readonly number[][] = [[], [0], [0, 0], [0, 0, 0], [0, 0, 0, 0]];

/**
 * new Decimal(`${m}e${k}`) for a non-zero safe integer m, without writing and parsing the text.
 *
 * decimal.js keeps |value| as base-1e7 words aligned on the decimal point (word j holds units of
 * 10^(7(floor(e/7) - j)), e the exponent of the leading digit), with no leading or trailing zero
 * word. The words are cut here from m in integer arithmetic (every step exact: remainders, and
 * divisions that leave none, of safe integers), and the constructor copies them as it copies any
 * Decimal (applying its exponent limits). A differential test compares s, e and d with the parser's.
 */
export function decimalOf(m: number, k: number): Decimal {
  const k0 = k;
  let u = Math.abs(m);
  // Trailing zero digits go to the exponent: the last word then ends in a non-zero digit.
  while (u % 10 === 0) {
    u /= 10;
    k++;
  }
  // The last word's place 10^(7q), and how far its units sit below m's last digit.
  const q = Math.floor(k / LOG_BASE);
  const r = k - LOG_BASE * q;
  const p = POW10[LOG_BASE - r] as number;
  const rest = u % p;
  const w0 = rest * (POW10[r] as number);
  u = (u - rest) / p;
  // The words above the last, least significant first: a safe integer (< 10^16) spans at most four
  // (the last holds at least one of its digits, two more hold seven each, the fourth what is left).
  let n = 1;
  let w1 = 0;
  let w2 = 0;
  if (u > 0) {
    w1 = u % 1e7;
    u = (u - w1) / 1e7;
    n = 2;
    if (u > 0) {
      w2 = u % 1e7;
      u = (u - w2) / 1e7;
      n = 3;
      // Past 4 words only if m was not a safe integer: the parser then (not exact, as it never was).
      if (u >= 1e7) return new Decimal(`${m}e${k0}`);
      if (u > 0) n = 4;
    }
  }
  // Most significant first, in the scratch array of that length: the constructor copies it, and
  // builds no Decimal from an array it did not copy. Neither the argument object nor the words are
  // new per call (a literal and an exact-length array were ~70 bytes of garbage per Decimal; a
  // push-grown array before them ~150), and this runs for every Decimal built from integers (touch
  // reads, SimVenue's fill amounts, marks).
  const words = WORDS[n] as number[];
  let lead: number;
  if (n === 1) {
    words[0] = lead = w0;
  } else if (n === 2) {
    words[0] = lead = w1;
    words[1] = w0;
  } else if (n === 3) {
    words[0] = lead = w2;
    words[1] = w1;
    words[2] = w0;
  } else {
    words[0] = lead = u;
    words[1] = w2;
    words[2] = w1;
    words[3] = w0;
  }
  let digits = 1;
  for (let t = 10; t <= lead; t *= 10) digits++;
  const x = SCRATCH;
  x.s = m < 0 ? -1 : 1;
  x.e = LOG_BASE * (q + n - 1) + digits - 1;
  x.d = words;
  return new Decimal(x as unknown as Decimal);
}

/**
 * new Decimal(`${u}e${k}`) for a non-zero bigint u of any length (the wide form's value, core's
 * BigDec values, the engine's amounts past 2^53), from its digit text in base-1e7 words as
 * decimalOf cuts them, without parsing the text (~0.2 vs ~0.8 us). A differential test compares
 * s, e and d with the parser's.
 */
export function decimalOfBig(u: bigint, k: number): Decimal {
  const neg = u < 0n;
  const t = (neg ? -u : u).toString();
  let n = t.length;
  // Trailing zero digits go to the exponent: the last word then ends in a non-zero digit.
  while (t.charCodeAt(n - 1) === 48) {
    n--;
    k++;
  }
  const e = k + n - 1;
  // The first word holds the digits down to the place 10^(7 floor(e/7)): (e mod 7) + 1 of them.
  let len = e - LOG_BASE * Math.floor(e / LOG_BASE) + 1;
  const words: number[] = [];
  for (let i = 0; i < n; i += len, len = LOG_BASE) {
    const end = i + len;
    let w = 0;
    for (let j = i; j < end; j++) w = w * 10 + (j < n ? t.charCodeAt(j) - 48 : 0);
    words.push(w);
  }
  return new Decimal({ toStringTag: DECIMAL_TAG, s: neg ? -1 : 1, e, d: words } as unknown as Decimal);
}

/**
 * Sum of the Decimals added so far, equal (value and digits) to what adding them one by one with
 * `plus`/`minus`, starting from 0, gives.
 *
 * Invariant: while `#dec` is undefined the sum is exactly `#units` x 10^`#exp` with `#units` a
 * safe integer (the integer form), or exactly `#big` x 10^`#exp` with |`#big`| below 10^40 (the
 * wide form, which a sum enters when it leaves the safe integers: a budget of 1e6 moved by fees
 * of 10 decimals), so every partial sum had at most 40 significant digits and decimal.js (40
 * digits) computed each of them exactly too: the values agree. The first term or partial sum
 * that does not fit switches to Decimal arithmetic from the exact value reached, after which
 * every step is the very `plus` of the plain loop.
 */
export class DecimalSum {
  #units = 0;
  #exp = 0;
  /** The wide form's units (the sum is #big x 10^#exp), or undefined in the integer form. */
  #big: bigint | undefined;
  #dec: Decimal | undefined;
  /** The Decimal of the integer or wide form, built when first read after a change. */
  #cached: Decimal | undefined;

  /** Adds `x`. */
  add(x: Decimal): void {
    this.#addSigned(x, 1);
  }

  /** Subtracts `x`. */
  sub(x: Decimal): void {
    this.#addSigned(x, -1);
  }

  /**
   * Adds m x 10^k (m a safe integer): what add() of that value's Decimal does, without the
   * Decimal (a caller that computed an exact amount in integers, such as a hold's price x quantity).
   */
  addUnits(m: number, k: number): void {
    if (this.#dec === undefined && this.#foldAny(m, k)) {
      this.#cached = undefined;
      return;
    }
    const v = this.value;
    this.#dec = v.plus(m === 0 ? new Decimal(0) : decimalOf(m, k));
    this.#big = undefined;
  }

  /** Adds (sign 1) or subtracts (sign -1) another sum; two integer forms fold without a Decimal. */
  addSum(o: DecimalSum, sign: 1 | -1 = 1): void {
    if (this.#dec === undefined && o.#dec === undefined && o.#big === undefined && this.#foldAny(sign * o.#units, o.#exp)) {
      this.#cached = undefined;
      return;
    }
    const v = this.value;
    this.#dec = sign > 0 ? v.plus(o.value) : v.minus(o.value);
    this.#big = undefined;
  }

  /** Adds (sign 1) or subtracts (sign -1) x times y; in integer form when the product of the mantissas is a safe integer. */
  addProduct(x: Decimal, y: Decimal, sign: 1 | -1 = 1): void {
    if (this.#dec === undefined && unpackDecimal(x)) {
      const mx = term.m;
      const kx = term.k;
      if (unpackDecimal(y)) {
        // Exact when the true product is a safe integer; beyond, it never comes out below 2^53.
        const m = mx * term.m;
        if (Math.abs(m) <= MAX_SAFE && this.#foldAny(sign * m, kx + term.k)) {
          this.#cached = undefined;
          return;
        }
      }
    }
    const v = this.value;
    const xy = x.mul(y);
    this.#dec = sign > 0 ? v.plus(xy) : v.minus(xy);
    this.#big = undefined;
  }

  /** True while the sum is held in integer form (exact, at most 16 significant digits). */
  get isInteger(): boolean {
    return this.#dec === undefined && this.#big === undefined;
  }

  /** Back to 0 in integer form (a scratch accumulator is reused instead of reallocated). */
  reset(): void {
    this.#units = 0;
    this.#exp = 0;
    this.#big = undefined;
    this.#dec = undefined;
    this.#cached = undefined;
  }

  /**
   * floor((this - o) x 10^scale), o absent meaning 0, without a Decimal: exact when both sums are
   * in integer or wide form and their difference has at most 40 significant digits (then it is
   * what `this.value.minus(o.value)` gives, unrounded); NaN otherwise (the caller takes the
   * Decimal path). Results of magnitude 2^52 or more come back as +-Infinity: callers compare
   * them with grid values below 2^52, where only the sign matters.
   */
  floorDiff(o: DecimalSum | undefined, scale: number): number {
    if (this.#dec !== undefined) return NaN;
    let bm = 0;
    let be = 0;
    let bBig: bigint | undefined;
    if (o !== undefined) {
      if (o.#dec !== undefined) return NaN;
      bm = o.#units;
      be = o.#exp;
      bBig = o.#big;
    }
    const aBig = this.#big;
    const am = this.#units;
    const ae = this.#exp;
    if (aBig === undefined && bBig === undefined) {
      // Both in integer form: numbers while every step stays exact (the difference of two safe
      // integers on a common exponent, then one multiplication or a flooring division below 2^52).
      const e = am === 0 ? be : bm === 0 ? ae : Math.min(ae, be);
      const pa = am === 0 ? 1 : POW10[ae - e];
      const pb = bm === 0 ? 1 : POW10[be - e];
      if (pa !== undefined && pb !== undefined) {
        const x = am * pa;
        const y = bm * pb;
        if (Math.abs(x) <= MAX_SAFE && Math.abs(y) <= MAX_SAFE && Math.abs(x - y) < 2 ** 52) return floorScaled(x - y, e + scale);
      }
    }
    const a = aBig ?? BigInt(am);
    const b = bBig ?? BigInt(bm);
    const e = a === 0n ? be : b === 0n ? ae : Math.min(ae, be);
    const sa = a === 0n ? 1n : POW10N[ae - e];
    const sb = b === 0n ? 1n : POW10N[be - e];
    // A shift past 10^40 of a non-zero value is itself past 40 digits.
    if (sa === undefined || sb === undefined) return NaN;
    const d = a * sa - b * sb;
    if (d >= BIG_LIMIT || d <= -BIG_LIMIT) return NaN;
    return floorScaledBig(d, e + scale);
  }

  /**
   * The nearest double of the sum (what `value.toNumber()` gives): in integer form with
   * |exponent| <= 22 one IEEE multiplication or division of two exact doubles rounds the exact
   * value once, to nearest, as parsing its text does.
   */
  toNumber(): number {
    if (this.#dec === undefined && this.#big === undefined) {
      if (this.#units === 0) return 0;
      const p = POW10[Math.abs(this.#exp)];
      if (p !== undefined) return this.#exp >= 0 ? this.#units * p : this.#units / p;
    }
    return decimalToNumber(this.value);
  }

  /**
   * The sum as m x 10^e (a core/bigDecimal.ts BigDec) in the integer and wide forms, without
   * building its Decimal; undefined once the sum has fallen back to Decimal arithmetic.
   */
  get exact(): { readonly m: bigint; readonly e: number } | undefined {
    if (this.#dec !== undefined) return undefined;
    if (this.#big !== undefined) return { m: this.#big, e: this.#exp };
    return { m: BigInt(this.#units), e: this.#exp };
  }

  /** The sum as a Decimal. */
  get value(): Decimal {
    if (this.#dec !== undefined) return this.#dec;
    if (this.#big !== undefined) return (this.#cached ??= decimalOfBig(this.#big, this.#exp));
    return (this.#cached ??= this.#units === 0 ? new Decimal(0) : decimalOf(this.#units, this.#exp));
  }

  #addSigned(x: Decimal, sign: 1 | -1): void {
    if (this.#dec === undefined && unpackDecimal(x) && this.#foldAny(sign * term.m, term.k)) {
      this.#cached = undefined;
      return;
    }
    const v = this.value;
    this.#dec = sign > 0 ? v.plus(x) : v.minus(x);
    this.#big = undefined;
  }

  /** #fold in integer form, else in the wide form; false (nothing changed) when neither holds the sum. */
  #foldAny(m: number, k: number): boolean {
    if (this.#big === undefined && this.#fold(m, k)) return true;
    return this.#foldBig(m, k);
  }

  /** units x 10^exp + m x 10^k in the wide form (back to integer form when it fits there again). */
  #foldBig(m: number, k: number): boolean {
    if (m === 0) return true;
    let units = this.#big ?? BigInt(this.#units);
    let exp = this.#exp;
    let t = BigInt(m);
    if (units === 0n) exp = k;
    else if (k < exp) {
      const p = POW10N[exp - k];
      if (p === undefined) return false;
      units *= p;
      exp = k;
    } else if (k > exp) {
      const p = POW10N[k - exp];
      if (p === undefined) return false;
      t *= p;
    }
    const sum = units + t;
    if (sum >= BIG_LIMIT || sum <= -BIG_LIMIT) return false;
    if (sum <= BIG_MAX_SAFE && sum >= -BIG_MAX_SAFE) {
      this.#units = Number(sum);
      this.#big = undefined;
    } else this.#big = sum;
    this.#exp = exp;
    return true;
  }

  /** units x 10^exp + m x 10^k in integer form; false (nothing changed) when it does not fit. */
  #fold(m: number, k: number): boolean {
    if (m === 0) return true;
    // Products and sums of safe integers are exact while the true result is at most 2^53 - 1,
    // and a true result beyond that never comes out below 2^53: one check after each operation.
    let units = this.#units;
    let exp = this.#exp;
    if (units === 0) exp = k;
    else if (k < exp) {
      // Rescale the sum down to the term's exponent.
      const p = POW10[exp - k];
      if (p === undefined) return false;
      units *= p;
      if (Math.abs(units) > MAX_SAFE) return false;
      exp = k;
    } else if (k > exp) {
      const p = POW10[k - exp];
      if (p === undefined) return false;
      m *= p;
      if (Math.abs(m) > MAX_SAFE) return false;
    }
    const sum = units + m;
    if (Math.abs(sum) > MAX_SAFE) return false;
    this.#units = sum;
    this.#exp = exp;
    return true;
  }
}

/** floor(d x 10^s) for a safe integer d below 2^52 in magnitude, +-Infinity from 2^52 on. */
function floorScaled(d: number, s: number): number {
  if (d === 0) return 0;
  if (s >= 0) {
    const p = POW10[s];
    const v = p === undefined ? Infinity : d * p;
    // d x 10^s is exact below 2^53 (a product of exact integers); past 2^52 only the sign counts.
    return v < 2 ** 52 && v > -(2 ** 52) ? v : d > 0 ? Infinity : -Infinity;
  }
  const p = POW10[-s];
  // Below 2^52 the quotient floors exactly: a non-integer quotient lies at least 1/p from an
  // integer, more than the division's rounding can move it. 10^-s beyond 10^22 exceeds |d|.
  if (p === undefined) return d > 0 ? 0 : -1;
  return Math.floor(d / p);
}

/** floor(d x 10^s) for a bigint d, +-Infinity from 2^52 on. */
function floorScaledBig(d: bigint, s: number): number {
  let f: bigint;
  if (s >= 0) {
    // |d| >= 1 makes |d| x 10^s at least 10^16 > 2^52 from s = 16 on.
    if (s >= 16) return d === 0n ? 0 : d > 0n ? Infinity : -Infinity;
    f = d * (POW10N[s] as bigint);
  } else {
    const p = POW10N[-s];
    // |d| < 10^40 <= 10^-s: the quotient is 0 (or -1 below zero).
    if (p === undefined) return d < 0n ? -1 : 0;
    f = d / p;
    // bigint division truncates toward zero: one less for a negative with a remainder.
    if (d < 0n && f * p !== d) f -= 1n;
  }
  return f >= BIG_2_52 ? Infinity : f <= -BIG_2_52 ? -Infinity : Number(f);
}
