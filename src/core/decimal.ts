/**
 * Decimal helpers. Wire values stay strings until parsed here, once, at the edge.
 * A dedicated Decimal constructor keeps global decimal.js settings untouched.
 */
import { Decimal as DecimalJs } from 'decimal.js';
import { ParseError } from './errors.js';

/** Decimal with 40 significant digits and no exponent notation in toString for realistic magnitudes. */
export const Decimal = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_UP, toExpNeg: -30, toExpPos: 40 });
/** A decimal value. */
export type Decimal = InstanceType<typeof Decimal>;

/** Zero. */
export const ZERO: Decimal = new Decimal(0);

/**
 * Whether `x` has at most 35 significant digits (five of decimal.js's base-1e7 digit words, read
 * from its internal array): within the 40-digit precision, so an operation whose exact result
 * equals such a value (abs of it, x - 0) would not round, and callers may use `x` itself instead.
 */
export function fitsPrecision(x: Decimal): boolean {
  const d = x.d as readonly number[] | null;
  return d !== null && d.length <= 5;
}

const DECIMAL_RE = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Parses a wire decimal (string, or number where the spec says numbers occur). Throws ParseError naming the field. */
export function parseDecimal(field: string, value: unknown): Decimal {
  if (typeof value === 'string') {
    if (!DECIMAL_RE.test(value)) throw new ParseError(field, value, 'not a decimal string');
    return new Decimal(value);
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Numbers from JSON already went through binary float parsing; toString gives the shortest
    // round-trip form, which is the decimal the sender wrote for the values exchanges emit.
    return new Decimal(value.toString());
  }
  throw new ParseError(field, value, 'expected a decimal string or finite number');
}

/** Parses an optional wire decimal: null/undefined/"" give undefined. */
export function parseOptionalDecimal(field: string, value: unknown): Decimal | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  return parseDecimal(field, value);
}

/** x > 0 by its sign, as x.gt(0) answers (NaN: false), without the Decimal(0) decimal.js builds for each comparison. */
export function isAboveZero(x: Decimal): boolean {
  return x.isPositive() && !x.isZero();
}

/** True when `value` is an exact multiple of `step` (step 0 disables the rule). */
export function isMultipleOf(value: Decimal, step: Decimal): boolean {
  if (step.isZero()) return true;
  return value.mod(step).isZero();
}

/** Rounds `value` down to a multiple of `step` counted from `base` (step 0: unchanged). */
export function floorToStep(value: Decimal, step: Decimal, base: Decimal = ZERO): Decimal {
  if (step.isZero()) return value;
  const k = base === ZERO ? decimalPlacesOfStep(step) : -1;
  if (k >= 0 && fitsPrecision(value)) return positiveZero(value.toDecimalPlaces(k, Decimal.ROUND_FLOOR));
  return value.minus(base).div(step).floor().mul(step).plus(base);
}

/** Rounds `value` up to a multiple of `step` counted from `base` (step 0: unchanged). */
export function ceilToStep(value: Decimal, step: Decimal, base: Decimal = ZERO): Decimal {
  if (step.isZero()) return value;
  const k = base === ZERO ? decimalPlacesOfStep(step) : -1;
  if (k >= 0 && fitsPrecision(value)) return positiveZero(value.toDecimalPlaces(k, Decimal.ROUND_CEIL));
  return value.minus(base).div(step).ceil().mul(step).plus(base);
}

/*
 * Tick and step sizes are nearly always 10^-k (0.01, 0.00001), and then rounding to a multiple is
 * rounding to k decimal places: one operation where the general form takes five, a division among
 * them. The two agree exactly when `value` has at most 35 significant digits (fitsPrecision): each
 * step of the general form is then exact at the 40-digit precision (x - 0, a shift by k, floor or
 * ceil, a shift back, + 0), and its + 0 turns a negative zero positive, which positiveZero repeats.
 * core/decimal.test.ts holds them to the same results.
 */

/** The powers of ten one of decimal.js's base-1e7 digit words can be. */
const POWER_WORDS = new Set([1, 10, 100, 1000, 10_000, 100_000, 1_000_000]);
let lastStep: Decimal | undefined;
let lastPlaces = -1;

/**
 * k when `step` is 10^-k with k >= 0 (0.01 → 2, 1 → 0), else -1: the steps scaled-integer code
 * can count in units of 10^-k. The last step's answer is kept.
 */
export function decimalPlacesOfStep(step: Decimal): number {
  if (step === lastStep) return lastPlaces;
  const d = step.d as readonly number[] | null;
  const k = d !== null && d.length === 1 && step.s === 1 && step.e <= 0 && POWER_WORDS.has(d[0] as number) ? 0 - step.e : -1; // 0 - e: never a negative zero
  lastStep = step;
  lastPlaces = k;
  return k;
}

/** `x`, or ZERO when it is a (possibly negative) zero. */
function positiveZero(x: Decimal): Decimal {
  return x.isZero() ? ZERO : x;
}

/** Formats a decimal for the wire without exponent notation. */
export function toWire(d: Decimal): string {
  return d.toFixed();
}
