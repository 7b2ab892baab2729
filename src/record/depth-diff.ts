/**
 * Depth diffs read from recordings with their levels kept as the wire's `[price, qty]` strings.
 *
 * A recorded depth diff carries ~50 levels; building two Decimals per level at read time was the
 * largest cost of a tick replay, while the local book and the engine only need scaled integers
 * and most strategies never read a diff's levels. So the reader keeps the validated strings and
 * the event's `bids`/`asks` build their Decimals on first access (once, then shared by every
 * reader of the event). The event is an ordinary object whose `bids`/`asks` are own enumerable
 * getters: JSON, spread and deep equality see the same Decimal levels as an eagerly parsed event.
 * The raw strings are reachable only through {@link rawDepthLevels}, for the replay's fast path.
 */
import type { DepthDiffEvent } from '../core/marketEvents.js';
import type { BookLevel } from '../core/types.js';
import type { DecimalTextCache } from '../core/decimalText.js';
import type { FlatDepthLevels, ScaledLevels } from '../core/scaledLevels.js';
import { scaledText } from './binary/format.js';
import { ReturnOverride } from '../core/hiddenSlot.js';
import { plainConstructor } from '../core/plainObject.js';

/** Wire levels: `[price, qty]` plain non-negative decimal strings. */
export type RawLevels = readonly (readonly [string, string])[];

/** The raw levels of a lazily parsed diff. */
export interface RawDepthLevels {
  readonly bids: RawLevels;
  readonly asks: RawLevels;
}

/**
 * True for a plain non-negative decimal (`"61837.63000000"`, `"0"`, `".5"`): digits with at most
 * one point and at least one digit. Every such string is also a valid wire decimal
 * (core/decimal's parseDecimal) and a valid scaled-integer input (exchange/book/scaled's toScaled),
 * so levels that pass need no further check on either path.
 */
export function isPlainDecimal(s: string): boolean {
  const n = s.length;
  let digits = 0;
  let dot = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c === 46 && !dot) dot = true;
    else return false;
  }
  return digits > 0;
}

/**
 * The payload's levels as string pairs when every level is `[plain decimal, plain decimal]` (or
 * strings that `accepts` takes); else undefined.
 */
export function plainLevels(v: unknown, accepts: (s: string) => boolean = isPlainDecimal): RawLevels | undefined {
  if (!Array.isArray(v)) return undefined;
  for (let i = 0; i < v.length; i++) {
    const lv: unknown = v[i];
    // Extra elements (some venues append fields) are allowed as the eager parser allows them.
    if (!Array.isArray(lv) || lv.length < 2) return undefined;
    const p: unknown = lv[0];
    const q: unknown = lv[1];
    if (typeof p !== 'string' || typeof q !== 'string' || !accepts(p) || !accepts(q)) return undefined;
  }
  return v as RawLevels;
}


function toBookLevels(raw: RawLevels, cache: DecimalTextCache): BookLevel[] {
  const out = new Array<BookLevel>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const lv = raw[i] as readonly [string, string];
    out[i] = { price: cache.get(lv[0]), qty: cache.get(lv[1]) };
  }
  return out;
}

/** Both sides of a diff as scaled integers (read from a binary recording: see record/binary). */
export interface ScaledDepthSides {
  readonly bids: ScaledLevels;
  readonly asks: ScaledLevels;
}

function scaledBookLevels(l: ScaledLevels, cache: DecimalTextCache): BookLevel[] {
  const out = new Array<BookLevel>(l.n);
  for (let i = 0; i < l.n; i++) out[i] = { price: cache.get(scaledText(l.prices[i] as number, l.priceScale)), qty: cache.get(scaledText(l.qtys[i] as number, l.qtyScale)) };
  return out;
}

/**
 * What a lazy diff keeps besides its plain fields: the wire levels (text recordings) or the scaled
 * sides (binary recordings) with, when they share one buffer, where they lie in it (the flat
 * fields; `buf` is empty otherwise), the cache, and the Decimal levels once built.
 */
interface LazyDepthState extends FlatDepthLevels {
  readonly raw: RawDepthLevels | undefined;
  /** Views of the flat levels, made when first asked for (a binary diff is read through the flat fields). */
  scaled: ScaledDepthSides | undefined;
  readonly cache: DecimalTextCache;
  bids: BookLevel[] | undefined;
  asks: BookLevel[] | undefined;
}

export type { FlatDepthLevels };

/** Whole-buffer views by buffer (the last one: a reader's diffs come pool by pool). */
let lastBuffer: ArrayBufferLike | undefined;
let lastWhole: Float64Array = new Float64Array(0);

/** A view of the whole of `a`'s buffer (the last one reused). */
function wholeOf(a: Float64Array): Float64Array {
  if (a.buffer !== lastBuffer) {
    lastBuffer = a.buffer;
    lastWhole = new Float64Array(a.buffer, 0, a.buffer.byteLength >> 3);
  }
  return lastWhole;
}

/** The state of a diff; flat fields from `bids`/`asks` when both lie in one buffer at one pair of scales. */
function depthState(raw: RawDepthLevels | undefined, bids: ScaledLevels | undefined, asks: ScaledLevels | undefined, cache: DecimalTextCache): LazyDepthState {
  let buf: Float64Array = EMPTY;
  let bp = 0;
  let bq = 0;
  let ap = 0;
  let aq = 0;
  let nb = 0;
  let na = 0;
  let ps = 0;
  let qs = 0;
  if (bids !== undefined && asks !== undefined) {
    const b = bids.prices.buffer;
    if (bids.qtys.buffer === b && asks.prices.buffer === b && asks.qtys.buffer === b && bids.priceScale === asks.priceScale && bids.qtyScale === asks.qtyScale && b.byteLength % 8 === 0) {
      buf = wholeOf(bids.prices);
      bp = bids.prices.byteOffset >> 3;
      bq = bids.qtys.byteOffset >> 3;
      ap = asks.prices.byteOffset >> 3;
      aq = asks.qtys.byteOffset >> 3;
      nb = bids.n;
      na = asks.n;
      ps = bids.priceScale;
      qs = bids.qtyScale;
    }
  }
  return new DepthState(buf, bp, bq, nb, ap, aq, na, ps, qs, raw, bids !== undefined && asks !== undefined ? { bids, asks } : undefined, cache);
}

const EMPTY = new Float64Array(0);

/**
 * A diff's state. Made by `new`, as the events themselves (see {@link DiffShell}): V8 never
 * pretenures a constructor's objects as it may a literal's (core/plainObject.ts).
 */
class DepthState implements LazyDepthState {
  declare bids: BookLevel[] | undefined;
  declare asks: BookLevel[] | undefined;
  constructor(
    // The fields a replay reads first, next to the object's header (one cache line with it).
    readonly buf: Float64Array,
    readonly bidPrices: number,
    readonly bidQtys: number,
    readonly nBids: number,
    readonly askPrices: number,
    readonly askQtys: number,
    readonly nAsks: number,
    readonly priceScale: number,
    readonly qtyScale: number,
    readonly raw: RawDepthLevels | undefined,
    public scaled: ScaledDepthSides | undefined,
    readonly cache: DecimalTextCache,
  ) {
    this.bids = undefined;
    this.asks = undefined;
  }
}

/** A diff event's plain fields, before its getters are added: a plain object made by `new` (core/plainObject.ts). */
const DiffShell = plainConstructor(function (this: { type: 'depthDiff'; E: number; symbol: string; firstUpdateId: number; finalUpdateId: number }, E: number, symbol: string, firstUpdateId: number, finalUpdateId: number) {
  this.type = 'depthDiff';
  this.E = E;
  this.symbol = symbol;
  this.firstUpdateId = firstUpdateId;
  this.finalUpdateId = finalUpdateId;
});

/**
 * A lazy diff's state, in a hidden slot: JSON, spread, Object.keys and deep equality never see it,
 * and a copy of the event keeps no wire strings.
 */
const STATE = class DepthSlot extends ReturnOverride {
  readonly #state: LazyDepthState;
  private constructor(o: object, state: LazyDepthState) {
    super(o);
    this.#state = state;
  }
  static set(o: object, state: LazyDepthState): void {
    new DepthSlot(o, state);
  }
  static get(o: object): LazyDepthState | undefined {
    return #state in o ? (o as DepthSlot).#state : undefined;
  }
};

/** The state of a diff made here (the getters run only on those). */
const stateOf = (e: object): LazyDepthState => STATE.get(e) as LazyDepthState;

/**
 * The `bids`/`asks` getters, one pair of functions shared by every lazy diff (they read the state
 * through `this`). Why shared: an object literal with `get` members creates new getter closures
 * per object, which puts every event in V8's dictionary mode (measured: %HasFastProperties false),
 * so each `e.type` / `e.E` / `e.symbol` on the replay's hot path was a slow dictionary lookup.
 * Defining the same accessor pair in the same order keeps every lazy diff on one fast hidden class.
 */
const LEVEL_GETTERS: PropertyDescriptorMap = {
  bids: {
    get(this: DepthDiffEvent): BookLevel[] {
      const s = stateOf(this);
      return (s.bids ??= s.raw !== undefined ? toBookLevels(s.raw.bids, s.cache) : scaledBookLevels((sidesOf(s) as ScaledDepthSides).bids, s.cache));
    },
    enumerable: true,
    configurable: true,
  },
  asks: {
    get(this: DepthDiffEvent): BookLevel[] {
      const s = stateOf(this);
      return (s.asks ??= s.raw !== undefined ? toBookLevels(s.raw.asks, s.cache) : scaledBookLevels((sidesOf(s) as ScaledDepthSides).asks, s.cache));
    },
    enumerable: true,
    configurable: true,
  },
};

/** The getters one by one (a defineProperty each costs less than one defineProperties of both). */
const BIDS_GETTER = LEVEL_GETTERS.bids as PropertyDescriptor;
const ASKS_GETTER = LEVEL_GETTERS.asks as PropertyDescriptor;

/** Gives a new diff event its level getters and its state. */
function makeLazy(ev: object, state: LazyDepthState): void {
  Object.defineProperty(ev, 'bids', BIDS_GETTER);
  Object.defineProperty(ev, 'asks', ASKS_GETTER);
  STATE.set(ev, state);
}

/**
 * A depth diff whose Decimal levels are built on first access from validated wire strings, through
 * `cache` (one per reader, so separate reads share nothing).
 */
export function lazyDepthDiff(E: number, symbol: string, firstUpdateId: number, finalUpdateId: number, rawBids: RawLevels, rawAsks: RawLevels, cache: DecimalTextCache): DepthDiffEvent {
  const ev = new DiffShell(E, symbol, firstUpdateId, finalUpdateId);
  makeLazy(ev, depthState({ bids: rawBids, asks: rawAsks }, undefined, undefined, cache));
  return ev as DepthDiffEvent;
}

/** The wire strings of a diff made by {@link lazyDepthDiff} (a copy keeps none: spread or JSON give plain Decimal levels). */
export function rawDepthLevels(e: DepthDiffEvent): RawDepthLevels | undefined {
  return STATE.get(e)?.raw;
}

/**
 * A depth diff whose sides arrive as scaled integers (a binary recording): the replay takes them as
 * they are ({@link scaledDepthSides}), and the Decimal levels are built on first access from their
 * exact text. Same getters and hidden class as {@link lazyDepthDiff}. The sides must not change after.
 */
export function scaledDepthDiff(E: number, symbol: string, firstUpdateId: number, finalUpdateId: number, bids: ScaledLevels, asks: ScaledLevels, cache: DecimalTextCache): DepthDiffEvent {
  const ev = new DiffShell(E, symbol, firstUpdateId, finalUpdateId);
  makeLazy(ev, depthState(undefined, bids, asks, cache));
  return ev as DepthDiffEvent;
}

/**
 * A depth diff whose levels lie in `buf` from `at`: the bid prices (`nBids`), the bid quantities,
 * the ask prices (`nAsks`), the ask quantities, at one pair of scales (a binary recording's
 * reader fills them so). As {@link scaledDepthDiff} gives, without the four array views and two
 * level objects a diff would need (made only when {@link scaledDepthSides} asks). The levels must
 * not change after.
 */
export function flatDepthDiff(E: number, symbol: string, firstUpdateId: number, finalUpdateId: number, buf: Float64Array, at: number, nBids: number, nAsks: number, priceScale: number, qtyScale: number, cache: DecimalTextCache): DepthDiffEvent {
  const ev = new DiffShell(E, symbol, firstUpdateId, finalUpdateId);
  const state = new DepthState(buf, at, at + nBids, nBids, at + 2 * nBids, at + 2 * nBids + nAsks, nAsks, priceScale, qtyScale, undefined, undefined, cache);
  makeLazy(ev, state);
  return ev as DepthDiffEvent;
}

/** The scaled sides of a diff made by {@link scaledDepthDiff} or {@link flatDepthDiff} (undefined for any other diff). */
export function scaledDepthSides(e: DepthDiffEvent): ScaledDepthSides | undefined {
  const s = STATE.get(e);
  return s === undefined ? undefined : sidesOf(s);
}

/** A state's scaled sides, its flat levels' views made on first use. */
function sidesOf(s: LazyDepthState): ScaledDepthSides | undefined {
  if (s.scaled !== undefined || s.raw !== undefined || s.buf.length === 0) return s.scaled;
  const b = s.buf;
  const level = (p: number, q: number, n: number): ScaledLevels => ({ n, prices: b.subarray(p, p + n), qtys: b.subarray(q, q + n), priceScale: s.priceScale, qtyScale: s.qtyScale });
  return (s.scaled = { bids: level(s.bidPrices, s.bidQtys, s.nBids), asks: level(s.askPrices, s.askQtys, s.nAsks) });
}

/**
 * Where the scaled sides of a diff made by {@link scaledDepthDiff} lie, when they share one buffer
 * at one pair of scales (a binary recording's diffs do); undefined otherwise.
 */
export function flatDepthLevels(e: DepthDiffEvent): FlatDepthLevels | undefined {
  const s = STATE.get(e);
  return s !== undefined && s.buf.length > 0 ? s : undefined;
}
