/**
 * The bulk of a text recording read straight from its bytes: depth diffs and trades written as the
 * recorder writes them (`{"stream":"…","data":{"e":"depthUpdate","E":…}}`, keys in the exchange's
 * order, no spaces) become the items the binary reader yields for the same lines (record/binary:
 * diffs with scaled sides, trades with their scaled integers), with no JSON.parse, no string per
 * level and no parse of the levels again in the replay. What this accepts is a strict subset of
 * JSON whose values the JSON path reads the same; a line in any other layout, or with a value this
 * does not hold exactly (ids beyond 2^53, escapes, more than 15 digits…), is declined (undefined)
 * and the caller parses it as JSON (record/format), which accepts or reports it as before.
 *
 * Module state, not an object per line: a line is scanned synchronously, start to end.
 */
import type { DepthDiffEvent, TradeEvent } from '../core/marketEvents.js';
import { POW10 as CORE_POW10 } from '../core/pow10.js';
import type { DecimalTextCache } from '../core/decimalText.js';
import { MAX_SCALE } from './binary/format.js';
import { flatDepthDiff } from './depth-diff.js';
import { wireTrade } from './trade.js';

const POW10 = CORE_POW10;

/** What a scan needs besides the line: the symbol mapping, the Decimal cache, and per wire symbol the largest depth scales used so far. */
export interface ScanContext {
  readonly symbolOf: ((wire: string) => string) | undefined;
  readonly decimals: DecimalTextCache;
  readonly depthScales: Map<string, readonly [number, number]>;
}

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const DATA_E = ascii(',"data":{"e":"');
const DEPTH_TYPE = ascii('depthUpdate","E":');
const TRADE_TYPE = ascii('trade","E":');
const S_KEY = ascii(',"s":"');
const U_KEY = ascii('","U":');
const LOWER_U_KEY = ascii(',"u":');
const B_KEY = ascii(',"b":[');
const A_KEY = ascii('],"a":[');
const DEPTH_END = ascii(']}}');
const T_KEY = ascii('","t":');
const P_KEY = ascii(',"p":"');
const Q_KEY = ascii(',"q":"');
const TIME_KEY = ascii(',"T":');
const M_KEY = ascii(',"m":');
const UPPER_M_KEY = ascii(',"M":');
const TRADE_END = ascii('}}');
const TRUE = ascii('true');
const FALSE = ascii('false');

let b: Buffer = Buffer.alloc(0);
let p = 0;
let end = 0;

function lit(l: Uint8Array): boolean {
  const n = l.length;
  if (p + n > end) return false;
  for (let k = 0; k < n; k++) if (b[p + k] !== l[k]) return false;
  p += n;
  return true;
}

/** The value of the digits {@link digits} read last. */
let acc = 0;

/** Reads the digits at p into acc (exact up to 2^53: a longer run is refused by its caller); their count. */
function digits(): number {
  const s = p;
  let v = 0;
  for (; p < end; p++) {
    const c = (b[p] as number) - 48;
    if (c < 0 || c > 9) break;
    v = v * 10 + c;
  }
  acc = v;
  return p - s;
}

/** A JSON non-negative integer that is a safe integer (no leading zero, at most 16 digits); -1 otherwise. */
function uint(): number {
  const s = p;
  const n = digits();
  // A safe integer's true value gives exact partial sums; a larger one computes to 2^53 or more.
  return n === 0 || n > 16 || (n > 1 && b[s] === 48) || acc > Number.MAX_SAFE_INTEGER ? -1 : acc;
}

/** `true` or `false`; undefined for anything else. */
function bool(): boolean | undefined {
  if (lit(TRUE)) return true;
  return lit(FALSE) ? false : undefined;
}

/** The text of a JSON string's printable-ASCII body up to its closing quote (not consumed), from a one-entry cache; undefined for anything else. */
let lastSymbolBytes = Buffer.alloc(0);
let lastSymbol = '';
function symbolText(): string | undefined {
  const s = p;
  for (; p < end; p++) {
    const c = b[p] as number;
    if (c === 34) break;
    if (c < 32 || c > 126 || c === 92) return undefined;
  }
  if (p >= end || p === s) return undefined;
  const n = p - s;
  let same = n === lastSymbolBytes.length;
  for (let k = 0; same && k < n; k++) same = b[s + k] === lastSymbolBytes[k];
  if (!same) {
    lastSymbolBytes = Buffer.from(b.subarray(s, p));
    lastSymbol = lastSymbolBytes.toString('latin1');
  }
  return lastSymbol;
}

/** Parts of the last plain decimal read: integer part, significant fraction digits as an integer, and their count. */
let dInt = 0;
let dFrac = 0;
let dFd = 0;

/**
 * A plain non-negative decimal string's body and closing quote (record/depth-diff's isPlainDecimal:
 * digits with at most one point, at least one digit) into dInt/dFrac/dFd; false otherwise or when
 * the integer part has more than 16 digits or the fraction more than 15 (the JSON path takes those).
 */
function plainDecimal(): boolean {
  const intDigits = digits();
  const int = acc;
  let fd = 0;
  let frac = 0;
  // The fraction up to its last non-zero digit (trailing zeros do not count: `0.00000000` is 0 at
  // scale 0), tracked as read: no division per trailing zero.
  let sig = 0;
  let sigDigits = 0;
  if (p < end && b[p] === 46) {
    for (p++; p < end; p++) {
      const c = (b[p] as number) - 48;
      if (c < 0 || c > 9) break;
      frac = frac * 10 + c;
      fd++;
      if (c !== 0) {
        sig = frac;
        sigDigits = fd;
      }
    }
  }
  // 15 fraction digits are exact in a double, so is every prefix of them.
  if (intDigits + fd === 0 || intDigits > 16 || fd > 15 || p >= end || b[p] !== 34) return false;
  p++;
  dInt = int;
  dFrac = sig;
  dFd = sigDigits;
  return true;
}

/** Per level of the diff being scanned: integer, fraction, fraction digits of its price, then of its quantity. */
let parts = new Float64Array(6 * 64);
let nParts = 0;

/** `[` levels `]` of one side (the opening bracket already read; the closing one left to the caller); false when not `["plain","plain"]` pairs. */
function levels(): boolean {
  if (b[p] === 93) return true;
  for (;;) {
    if (b[p] !== 91 || b[p + 1] !== 34) return false;
    p += 2;
    if (6 * (nParts + 1) > parts.length) {
      const grown = new Float64Array(parts.length * 2);
      grown.set(parts);
      parts = grown;
    }
    const at = 6 * nParts;
    if (!plainDecimal()) return false;
    parts[at] = dInt;
    parts[at + 1] = dFrac;
    parts[at + 2] = dFd;
    if (b[p] !== 44 || b[p + 1] !== 34) return false;
    p += 2;
    if (!plainDecimal()) return false;
    parts[at + 3] = dInt;
    parts[at + 4] = dFrac;
    parts[at + 5] = dFd;
    if (b[p] !== 93) return false;
    p++;
    nParts++;
    if (b[p] === 93) return true;
    if (b[p] !== 44) return false;
    p++;
  }
}

/**
 * Levels are cut from shared pools in reading order, as the binary reader's are: both sides of a
 * diff lie in one buffer, laid out as record/depth-diff's flatDepthDiff reads them (bid prices, bid
 * quantities, ask prices, ask quantities), and reading allocates no backing store or view per side.
 */
const POOL = 1 << 15;
let pool = new Float64Array(POOL);
let poolUsed = 0;

/** The scanned levels from `from` (count `n`) at the scales into the pool at `at` (prices, then quantities); false when one is beyond 2^53 there. */
function scaledSide(from: number, n: number, at: number, ps: number, qs: number): boolean {
  const buf = pool;
  const q0 = at + n;
  for (let i = 0; i < n; i++) {
    const x = 6 * (from + i);
    // Exact while the true value is a safe integer; a larger one computes to 2^53 or more.
    const price = (parts[x] as number) * (POW10[ps] as number) + (parts[x + 1] as number) * (POW10[ps - (parts[x + 2] as number)] as number);
    const qty = (parts[x + 3] as number) * (POW10[qs] as number) + (parts[x + 4] as number) * (POW10[qs - (parts[x + 5] as number)] as number);
    if (!(price <= Number.MAX_SAFE_INTEGER) || !(qty <= Number.MAX_SAFE_INTEGER)) return false;
    buf[at + i] = price;
    buf[q0 + i] = qty;
  }
  return true;
}

/** Both sides at the scales into the pool at `at`; false when a level does not fit there (the place is then overwritten or left unused). */
function scaledSides(at: number, nb: number, na: number, ps: number, qs: number): boolean {
  return scaledSide(0, nb, at, ps, qs) && scaledSide(nb, na, at + 2 * nb, ps, qs);
}

/**
 * The depth diff or trade whose payload is `buf[from, to)` (from just after the stream name's
 * closing quote to the end of the line), as the binary reader yields it; undefined when the line is
 * not one of them in the recorder's layout or a value does not fit: the caller parses it as JSON.
 */
export function scanPayload(buf: Buffer, from: number, to: number, ctx: ScanContext): DepthDiffEvent | TradeEvent | undefined {
  b = buf;
  p = from;
  end = to;
  if (!lit(DATA_E)) return undefined;
  if (lit(DEPTH_TYPE)) return depthDiff(ctx);
  return lit(TRADE_TYPE) ? trade(ctx) : undefined;
}

/**
 * A depth diff's fields after its type: sides at the scales the binary writer picks (this diff's
 * significant fraction digits, raised to the largest the symbol reached before when its levels fit
 * there).
 */
function depthDiff(ctx: ScanContext): DepthDiffEvent | undefined {
  const E = uint();
  if (E < 0 || !lit(S_KEY)) return undefined;
  const s = symbolText();
  if (s === undefined || !lit(U_KEY)) return undefined;
  const U = uint();
  if (U < 0 || !lit(LOWER_U_KEY)) return undefined;
  const u = uint();
  if (u < U || !lit(B_KEY)) return undefined;
  nParts = 0;
  if (!levels()) return undefined;
  const nb = nParts;
  if (!lit(A_KEY) || !levels() || !lit(DEPTH_END) || p !== end) return undefined;
  const na = nParts - nb;
  let ownPs = 0;
  let ownQs = 0;
  for (let i = 0; i < nParts; i++) {
    const pd = parts[6 * i + 2] as number;
    const qd = parts[6 * i + 5] as number;
    if (pd > ownPs) ownPs = pd;
    if (qd > ownQs) ownQs = qd;
  }
  if (ownPs > MAX_SCALE || ownQs > MAX_SCALE) return undefined;
  const prev = ctx.depthScales.get(s);
  if (poolUsed + 2 * nParts > pool.length) {
    pool = new Float64Array(Math.max(POOL, 2 * nParts));
    poolUsed = 0;
  }
  const at = poolUsed;
  let ps = prev !== undefined && prev[0] > ownPs ? prev[0] : ownPs;
  let qs = prev !== undefined && prev[1] > ownQs ? prev[1] : ownQs;
  if (!scaledSides(at, nb, na, ps, qs)) {
    ps = ownPs;
    qs = ownQs;
    if (!scaledSides(at, nb, na, ps, qs)) return undefined;
  } else if (prev === undefined || prev[0] !== ps || prev[1] !== qs) ctx.depthScales.set(s, [ps, qs]);
  poolUsed += 2 * nParts;
  return flatDepthDiff(E, ctx.symbolOf ? ctx.symbolOf(s) : s, U, u, pool, at, nb, na, ps, qs, ctx.decimals);
}

/** The last canonical decimal read: its digits as one integer, and its count of fraction digits. */
let cValue = 0;
let cScale = 0;

/**
 * A decimal string that record/binary/format's scaledText spells back the same (no leading zero
 * but a lone one, a point only before digits, at most 15 digits), and its closing quote.
 */
function canonicalDecimal(): boolean {
  const s = p;
  const intDigits = digits();
  if (intDigits === 0 || (intDigits > 1 && b[s] === 48)) return false;
  let v = acc;
  let scale = 0;
  if (p < end && b[p] === 46) {
    p++;
    scale = digits();
    if (scale === 0 || intDigits + scale > 15) return false;
    v = v * (POW10[scale] as number) + acc;
  }
  if (intDigits > 15 || p >= end || b[p] !== 34) return false;
  p++;
  cValue = v;
  cScale = scale;
  return true;
}

/**
 * A trade's fields after its type: the wire decimals as the integers that spell them, and the
 * smallest exact scaled values for the replay. The recorder's layout without buyer and seller
 * order ids.
 */
function trade(ctx: ScanContext): TradeEvent | undefined {
  const E = uint();
  if (E < 0 || !lit(S_KEY)) return undefined;
  const s = symbolText();
  if (s === undefined || !lit(T_KEY)) return undefined;
  const t = uint();
  if (t < 0 || !lit(P_KEY) || !canonicalDecimal()) return undefined;
  const price = cValue;
  const priceScale = cScale;
  if (!lit(Q_KEY) || !canonicalDecimal()) return undefined;
  const qty = cValue;
  const qtyScale = cScale;
  if (!lit(TIME_KEY)) return undefined;
  const T = uint();
  if (T < 0 || !lit(M_KEY)) return undefined;
  const m = bool();
  if (m === undefined || !lit(UPPER_M_KEY) || bool() === undefined || !lit(TRADE_END) || p !== end) return undefined;
  return wireTrade(E, ctx.symbolOf ? ctx.symbolOf(s) : s, t, T, m, undefined, undefined, price, priceScale, qty, qtyScale, ctx.decimals);
}
