/**
 * One side of a depth update parsed once into scaled integers, so that a replay hands the same
 * parsed levels to every consumer (the local order book and the matching engine's replayed
 * liquidity) instead of each parsing the wire strings again.
 *
 * Values are integer counts of 10^-scale units held exactly in doubles (within the safe-integer
 * range); a consumer whose own scale differs converts exactly or refuses, it never rounds.
 * The arrays are reusable buffers: only the first `n` entries are meaningful, and a producer may
 * swap in larger arrays when a side has more levels than they hold.
 *
 * Scale policy of {@link parseDepthSides}: parsing starts at the scales the caller names (the
 * replay passes its local book's current scales, so in the steady state nothing is converted) and
 * raises a scale only when a string has more significant fraction digits than it, to exactly that
 * string's count, converting the levels parsed before it (exact; a level that would leave the
 * safe-integer range is refused). Both sides of one update end at the same two scales. This is the
 * local book's own policy for wire strings (it rescales the same way at the same strings), so
 * the book reaches the same scales either way. Trailing zeros never raise a scale.
 */
import { ParseError } from './errors.js';
import { POW10 as CORE_POW10 } from './pow10.js';

/** Core's powers of ten under a local const, which V8 folds into the compiled code (see core/pow10.ts). */
const POW10 = CORE_POW10;

/** One side of a depth update as scaled integers. */
export interface ScaledLevels {
  /** Levels in use, in the order the update listed them. */
  n: number;
  /** Scaled prices; entry i belongs to quantity i. */
  prices: Float64Array;
  /** Scaled absolute quantities; 0 removes the level. */
  qtys: Float64Array;
  /** Fraction digits of the scaled prices. */
  priceScale: number;
  /** Fraction digits of the scaled quantities. */
  qtyScale: number;
}

/**
 * Both sides of a depth update where they lie in one buffer (a binary recording's level pool):
 * `buf` is the whole buffer and the other fields index into it; both sides are at
 * `priceScale`/`qtyScale`. A binary recording's diffs carry them (record/depth-diff's
 * flatDepthLevels).
 *
 * Why: a replay reading the sides as ScaledLevels goes event -> state -> sides -> ScaledLevels ->
 * array views, and on a pre-loaded recording the ScaledLevels and their views (made by the reader,
 * between everything else it allocated) are cache misses a diff each. These fields sit in the
 * state the replay reads anyway, and `buf` is shared by hundreds of diffs.
 */
export interface FlatDepthLevels {
  readonly buf: Float64Array;
  /** Index in buf of the first bid price; the bid quantities, ask prices and ask quantities as well. */
  readonly bidPrices: number;
  readonly bidQtys: number;
  readonly nBids: number;
  readonly askPrices: number;
  readonly askQtys: number;
  readonly nAsks: number;
  readonly priceScale: number;
  readonly qtyScale: number;
}

/** Empty reusable levels with room for `capacity` entries. */
export function scaledLevels(capacity = 64): ScaledLevels {
  return { n: 0, prices: new Float64Array(capacity), qtys: new Float64Array(capacity), priceScale: 0, qtyScale: 0 };
}

/**
 * Makes room for `n` levels in `l`: when its arrays are smaller they are replaced (at least
 * doubled, so a buffer reused across updates grows a few times at most), without their contents.
 */
export function reserveLevels(l: ScaledLevels, n: number): void {
  if (l.prices.length < n) {
    l.prices = new Float64Array(Math.max(n, l.prices.length * 2));
    l.qtys = new Float64Array(l.prices.length);
  }
}

/** {@link scaledDecimal}: the string has significant fraction digits beyond the scale. */
export const NEEDS_SCALE = -1;
/** {@link scaledDecimal}: not a non-negative plain decimal. */
export const NOT_PLAIN = -2;
/** {@link scaledDecimal}: beyond the safe-integer range at this scale. */
export const TOO_LARGE = -3;

/**
 * A non-negative plain decimal string (`"61837.63000000"`, `"5"`, `".5"`, `"5."`) as an integer
 * count of 10^-scale units; {@link NEEDS_SCALE}, {@link NOT_PLAIN} or {@link TOO_LARGE} otherwise
 * (NEEDS_SCALE may be returned before a later malformed character is seen; parsing again at the
 * scale {@link fractionDigitsOf} gives then reports it). `scale` must be 0..22.
 *
 * Hot path of every replayed level: the integer and the kept fraction digits are accumulated in
 * two separate chains (a multiply-add per digit is the whole cost of a 14-character string) and
 * joined with one multiply-add; the fraction digits beyond the scale only need to be zeros. Exact:
 * while the true value is a safe integer every partial result is one; when it is not, the
 * computed one (rounded monotonically) is at least 2^53 as well, so the range check catches it.
 */
export function scaledDecimal(s: string, scale: number): number {
  const n = s.length;
  let i = 0;
  let int = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) break;
    int = int * 10 + c;
  }
  const intDigits = i;
  let frac = 0;
  let fd = 0;
  if (i < n) {
    if (s.charCodeAt(i) !== 46) return NOT_PLAIN;
    i++;
    const keep = i + scale < n ? i + scale : n;
    for (; i < keep; i++) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return NOT_PLAIN;
      frac = frac * 10 + c;
    }
    fd = keep - (intDigits + 1);
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c !== 48) return c >= 49 && c <= 57 ? NEEDS_SCALE : NOT_PLAIN;
    }
    // Every character but the point was a digit: "." alone has none.
    if (n === 1) return NOT_PLAIN;
  } else if (n === 0) return NOT_PLAIN;
  const v = int * (POW10[scale] as number) + frac * (POW10[scale - fd] as number);
  // `!(v <= max)` also refuses NaN (a scale beyond 22 has no power of ten here).
  return !(v <= Number.MAX_SAFE_INTEGER) ? TOO_LARGE : v;
}

/** Significant fraction digits of a plain decimal string (trailing zeros ignored). */
export function fractionDigitsOf(s: string): number {
  const dot = s.indexOf('.');
  if (dot < 0) return 0;
  let end = s.length;
  while (end > dot + 1 && s.charCodeAt(end - 1) === 48) end--;
  return end - dot - 1;
}

/** Wire levels: `[price, qty]` plain non-negative decimal strings. */
export type WireLevels = readonly (readonly [string, string])[];

/**
 * Parses both sides of a depth update into `bids` and `asks` (see the scale policy above),
 * starting at `priceScale`/`qtyScale`. Throws ParseError (field `price` or `qty`) for a string
 * that is not a plain decimal or does not fit the safe-integer range at the scale it needs, and
 * RangeError when raising a scale would take an earlier level out of that range; the buffers'
 * content is then unspecified.
 */
export function parseDepthSides(rawBids: WireLevels, rawAsks: WireLevels, bids: ScaledLevels, asks: ScaledLevels, priceScale: number, qtyScale: number): void {
  bids.priceScale = asks.priceScale = priceScale;
  bids.qtyScale = asks.qtyScale = qtyScale;
  bids.n = asks.n = 0;
  parseSide(rawBids, bids, bids, asks);
  parseSide(rawAsks, asks, bids, asks);
}

/** Parses one side into `out`, raising the common scales of `bids` and `asks` when a string needs it. */
function parseSide(raw: WireLevels, out: ScaledLevels, bids: ScaledLevels, asks: ScaledLevels): void {
  const len = raw.length;
  reserveLevels(out, len);
  const prices = out.prices;
  const qtys = out.qtys;
  for (let i = 0; i < len; i++) {
    const lv = raw[i] as readonly [string, string];
    let p = scaledDecimal(lv[0], out.priceScale);
    if (p < 0) p = slowPart(lv[0], 'price', p, i, out, bids, asks);
    const qs = lv[1];
    let q = 0;
    if (qs !== zeroQty) {
      q = scaledDecimal(qs, out.qtyScale);
      if (q < 0) q = slowPart(qs, 'qty', q, i, out, bids, asks);
      else if (q === 0) zeroQty = qs;
    }
    prices[i] = p;
    qtys[i] = q;
    out.n = i + 1;
  }
}

/**
 * The text of the last quantity that parsed to zero (a removal). About half the levels of a depth
 * stream are removals, written the same way every time (`"0.00000000"` on Binance), and comparing
 * a string with this one is cheaper than parsing it (~28 vs ~45 ns measured), so a string equal to
 * it is zero without parsing. Exact: it holds only a string that did parse to zero (at any scale,
 * zero is zero), and only an identical string matches.
 */
let zeroQty = '0';

/** A string the fast parse refused: raise the scale it needs (converting what is parsed) or throw. */
function slowPart(s: string, field: 'price' | 'qty', code: number, at: number, out: ScaledLevels, bids: ScaledLevels, asks: ScaledLevels): number {
  const scale = field === 'price' ? out.priceScale : out.qtyScale;
  let v = code;
  if (v === NEEDS_SCALE) {
    const need = fractionDigitsOf(s);
    if (need > 22) throw new ParseError(field, s, `more than 22 fraction digits`);
    // Levels already parsed on both sides move to the new scale (exact, or refused).
    out.n = at;
    raiseScale(bids, field, need);
    raiseScale(asks, field, need);
    v = scaledDecimal(s, need);
  }
  if (v === NOT_PLAIN) throw new ParseError(field, s, 'not a non-negative plain decimal');
  if (v === TOO_LARGE) throw new ParseError(field, s, `too large for scale ${field === 'price' ? out.priceScale : out.qtyScale}`);
  if (v < 0) throw new ParseError(field, s, `not a plain decimal at scale ${scale}`);
  return v;
}

/** Multiplies one field of the first n levels by 10^(to - scale) and records the new scale. */
function raiseScale(l: ScaledLevels, field: 'price' | 'qty', to: number): void {
  const from = field === 'price' ? l.priceScale : l.qtyScale;
  const f = POW10[to - from] as number;
  const a = field === 'price' ? l.prices : l.qtys;
  for (let i = 0; i < l.n; i++) {
    const v = (a[i] as number) * f;
    if (v > Number.MAX_SAFE_INTEGER) throw new RangeError('level beyond safe-integer range after rescale');
    a[i] = v;
  }
  if (field === 'price') l.priceScale = to;
  else l.qtyScale = to;
}
