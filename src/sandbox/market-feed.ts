/**
 * Market activity that moves the sandbox's books: a replay of a recording (looped or once, at a
 * chosen speed) or a seeded synthetic flow. Both feed the engine through its external-liquidity
 * calls (snapshot, diff, trade), so own orders meet the same market the streams show.
 */
import { type Clock, ConfigError, type Decimal, floorToStep } from '../core/index.js';
import type { BookLevel } from '../core/types.js';
import type { MarketActivity, SandboxSymbol } from './config.js';
import type { ExchangeState } from './exchange-state.js';
import type { RecordedEvent } from './recording.js';
import type { RecordingStream } from './recording-stream.js';
import { mulberry32 } from '../core/random.js';

/** A running feed. */
export interface MarketFeed {
  readonly symbol: string;
  /** Events applied so far (replayed messages or synthetic steps). */
  readonly applied: number;
  /** Replayed values that were finer than the symbol's tick or step and were floored to it. */
  readonly adjusted: number;
  /** Events the engine refused; the feed carries on without them. */
  readonly failed: number;
  /** The last refusal, for the admin status. */
  readonly lastError: string | undefined;
  /**
   * A replay's clock: the recorded receive time (ms) of the last recorded message it applied, or of
   * the one it is applying while the engine reports what that message did; undefined for a
   * synthetic flow. What a client's order met is told by where the replay stood when it arrived.
   */
  readonly replayedTo: number | undefined;
  /**
   * Settles once the feed has applied its last event and will move its book no more (a replay
   * played once); undefined for a feed that never ends (a looped replay, a synthetic flow). A feed
   * stopped before its end never settles it.
   */
  readonly ended: Promise<void> | undefined;
  stop(): void;
}

/**
 * Floors replayed prices to the tick and quantities to the step of the sandbox symbol. A real
 * book can hold quantities finer than today's step (orders placed under older filters: one level
 * of 2,000 in the bundled sample's snapshot); the engine keeps exact scaled integers at the
 * symbol's scale, so such a value is floored and counted rather than crashing the replay.
 */
class Quantizer {
  adjusted = 0;
  readonly #tick: Decimal | undefined;
  readonly #step: Decimal | undefined;
  constructor(sym: SandboxSymbol) {
    const t = sym.info.filters.priceFilter?.tickSize;
    const q = sym.info.filters.lotSize?.stepSize;
    this.#tick = t && !t.isZero() ? t : undefined;
    this.#step = q && !q.isZero() ? q : undefined;
  }
  #floor(v: Decimal, unit: Decimal | undefined): Decimal {
    if (!unit) return v;
    const r = floorToStep(v, unit);
    if (!r.eq(v)) this.adjusted++;
    return r;
  }
  price(v: Decimal): Decimal {
    return this.#floor(v, this.#tick);
  }
  qty(v: Decimal): Decimal {
    return this.#floor(v, this.#step);
  }
  levels(levels: readonly BookLevel[]): BookLevel[] {
    return levels.map((l) => ({ price: this.price(l.price), qty: this.qty(l.qty) }));
  }
}

const MAX_TIMER_MS = 1000;

/**
 * Applies recorded messages to the engine as a replay does, in the recording's order: a snapshot
 * replaces the replayed book, diffs before the snapshot (or already in it) are dropped, as the
 * book rules say, and values finer than the symbol's filters are floored (Quantizer). Apart from
 * the timer so that a replay of a run's orders (bench/parityReplay.ts) meets the same book.
 */
export class RecordedApplier {
  readonly #q: Quantizer;
  #lastUpdateId = 0;
  #synced = false;

  constructor(
    readonly symbol: string,
    sym: SandboxSymbol,
  ) {
    this.#q = new Quantizer(sym);
  }

  /** Replayed values floored to the filters so far. */
  get adjusted(): number {
    return this.#q.adjusted;
  }

  /** Forgets the snapshot: diffs wait for the next one (a looped replay starting again). */
  restart(): void {
    this.#synced = false;
  }

  apply(engine: ExchangeState['engine'], ev: RecordedEvent, now: number): void {
    const q = this.#q;
    switch (ev.kind) {
      case 'snapshot':
        // The recording's exchange times decide which trades a diff already reflects (src/sim/README.md, the
        // fill model); a snapshot carries none, so a looped replay starts that ordering afresh.
        engine.applyDepthSnapshot(this.symbol, { bids: q.levels(ev.bids), asks: q.levels(ev.asks), time: -Infinity }, now);
        this.#lastUpdateId = ev.lastUpdateId;
        this.#synced = true;
        return;
      case 'diff':
        if (this.#synced && ev.u > this.#lastUpdateId) engine.applyDepthDiff(this.symbol, { bids: q.levels(ev.bids), asks: q.levels(ev.asks), time: ev.E }, now);
        return;
      case 'trade':
        engine.applyTrade(this.symbol, { price: q.price(ev.price), qty: q.qty(ev.qty), isBuyerMaker: ev.isBuyerMaker, time: ev.T }, now);
        return;
      default: {
        const never: never = ev;
        void never;
      }
    }
  }
}

/**
 * Replays a recording as it is read from disk (RecordingStream): diffs before the snapshot (or
 * already in it) are dropped, as the book rules say. When the read-ahead runs dry the replay waits
 * for the reader and goes on where it stood; a looped replay re-reads the file.
 */
class ReplayFeed implements MarketFeed {
  applied = 0;
  replayedTo: number | undefined;
  #failed = 0;
  #lastError: string | undefined;
  readonly #applier: RecordedApplier;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #startWall = 0;
  #startRec = 0;
  /**
   * Added to recorded trade times for bars: each pass of a looped replay is shifted by the
   * recording's trade span rounded up to whole minutes, so the bars' clock never goes back.
   */
  #passShift = 0;
  readonly ended: Promise<void> | undefined;
  #end: () => void = () => undefined;

  constructor(
    readonly state: ExchangeState,
    sym: SandboxSymbol,
    readonly source: RecordingStream,
    readonly loop: boolean,
    readonly speed: number,
    readonly clock: Clock,
    readonly onDiffs: (() => void) | undefined,
    readonly onReadFailure: ((err: Error) => void) | undefined,
  ) {
    this.symbol = sym.info.symbol;
    this.#applier = new RecordedApplier(this.symbol, sym);
    this.ended = loop ? undefined : new Promise<void>((resolve) => (this.#end = resolve));
    this.#restart();
    this.#schedule(0);
  }

  readonly symbol: string;

  get adjusted(): number {
    return this.#applier.adjusted;
  }

  /** Engine refusals and unreadable lines of the recording, both skipped. */
  get failed(): number {
    return this.#failed + this.source.badLines;
  }

  get lastError(): string | undefined {
    return this.#lastError ?? this.source.lastError;
  }

  /** A pass starts at its snapshot, the first message the reader hands out. */
  #restart(): void {
    this.#applier.restart();
    this.#startWall = this.clock.now();
    this.#startRec = this.source.peek()?.ms ?? 0;
  }

  #schedule(ms: number): void {
    if (!this.#stopped) this.#timer = setTimeout(() => this.#run(), Math.max(0, Math.min(ms, MAX_TIMER_MS)));
  }

  /** Runs `then` once the reader has a message or has ended its pass. */
  #whenReady(then: () => void): void {
    void this.source.ready().then(() => {
      if (!this.#stopped) then();
    });
  }

  #run(): void {
    this.#timer = undefined;
    const elapsed = (this.clock.now() - this.#startWall) * this.speed;
    let diffs = 0;
    const src = this.source;
    this.state.exec((engine, now) => {
      for (let ev = src.peek(); ev !== undefined && ev.ms - this.#startRec <= elapsed; ev = src.peek()) {
        src.take();
        this.replayedTo = ev.ms;
        try {
          this.#applier.apply(engine, ev, now);
          // Bars are built on the recording's clock (market-data.ts), from the trade's recorded time.
          if (ev.kind === 'trade') this.state.market.replayedTrade(this.symbol, ev.T + this.#passShift);
          this.applied++;
          if (ev.kind === 'diff') diffs++;
        } catch (e) {
          // One bad message must not stop the market: count it, keep the reason, carry on.
          this.#failed++;
          this.#lastError = e instanceof Error ? e.message : String(e);
        }
      }
    });
    if (diffs > 0) this.onDiffs?.();
    const next = src.peek();
    if (next !== undefined) {
      this.#schedule((next.ms - this.#startRec - elapsed) / this.speed);
      return;
    }
    if (!src.done) {
      this.#whenReady(() => this.#schedule(0));
      return;
    }
    // A recording cut short ends its pass early: the market it replays would just go still.
    if (src.readFailure !== undefined) this.onReadFailure?.(new Error(src.readFailure));
    if (!this.loop) {
      this.#end();
      return;
    }
    this.#passShift += src.passLength;
    src.rewind();
    this.#whenReady(() => {
      this.#restart();
      this.#schedule(0);
    });
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.source.close();
  }
}

/**
 * A seeded random walk: the mid moves by at most one tick per step, `levels` levels a side at
 * whole ticks with random whole-step quantities, and public trades at the touch. Every price and
 * quantity is built from the symbol's tickSize and stepSize, so it obeys the filters.
 */
class SyntheticFeed implements MarketFeed {
  applied = 0;
  /** Synthetic values are built on the tick and step, so nothing is ever adjusted or refused. */
  readonly adjusted = 0;
  /** A synthetic flow runs until stopped. */
  readonly ended = undefined;
  /** A synthetic flow has no recording clock. */
  readonly replayedTo = undefined;
  failed = 0;
  lastError: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #rnd: () => number;
  #midTicks: number;
  readonly #tick: Decimal;
  readonly #step: Decimal;
  #bids = new Map<number, number>();
  #asks = new Map<number, number>();

  constructor(
    readonly state: ExchangeState,
    readonly activity: Extract<MarketActivity, { kind: 'synthetic' }>,
    sym: SandboxSymbol,
  ) {
    const tick = sym.info.filters.priceFilter?.tickSize;
    const step = sym.info.filters.lotSize?.stepSize;
    if (!tick || tick.isZero() || !step || step.isZero()) throw new ConfigError('sandbox config', `market[${activity.symbol}].synthetic`, activity.symbol, 'a synthetic flow needs PRICE_FILTER tickSize and LOT_SIZE stepSize');
    this.#tick = tick;
    this.#step = step;
    this.#rnd = mulberry32(activity.seed);
    this.#midTicks = activity.midPrice.div(tick).floor().toNumber();
    this.symbol = activity.symbol;
    this.#step0();
    this.#timer = setInterval(() => {
      try {
        this.#stepN();
      } catch (e) {
        // Never let a refused step take the server down: count it and carry on.
        this.failed++;
        this.lastError = e instanceof Error ? e.message : String(e);
      }
    }, activity.intervalMs);
  }

  readonly symbol: string;

  #levels(): { bids: Map<number, number>; asks: Map<number, number> } {
    const bids = new Map<number, number>();
    const asks = new Map<number, number>();
    for (let i = 1; i <= this.activity.levels; i++) {
      bids.set(this.#midTicks - i, 1 + Math.floor(this.#rnd() * this.activity.maxLevelSteps));
      asks.set(this.#midTicks + i, 1 + Math.floor(this.#rnd() * this.activity.maxLevelSteps));
    }
    return { bids, asks };
  }

  #toLevels(m: Map<number, number>): { price: Decimal; qty: Decimal }[] {
    return [...m].map(([p, q]) => ({ price: this.#tick.mul(p), qty: this.#step.mul(q) }));
  }

  #step0(): void {
    const { bids, asks } = this.#levels();
    this.#bids = bids;
    this.#asks = asks;
    this.state.exec((e, now) => e.applyDepthSnapshot(this.symbol, { bids: this.#toLevels(bids), asks: this.#toLevels(asks) }, now));
  }

  #diff(prev: Map<number, number>, next: Map<number, number>): Map<number, number> {
    const out = new Map<number, number>();
    for (const [p, q] of next) if (prev.get(p) !== q) out.set(p, q);
    for (const p of prev.keys()) if (!next.has(p)) out.set(p, 0);
    return out;
  }

  #stepN(): void {
    const r = this.#rnd();
    this.#midTicks += r < 0.33 ? -1 : r > 0.67 ? 1 : 0;
    const { bids, asks } = this.#levels();
    const db = this.#diff(this.#bids, bids);
    const da = this.#diff(this.#asks, asks);
    this.#bids = bids;
    this.#asks = asks;
    const trade = this.#rnd() < this.activity.tradeProbability;
    const sellHits = this.#rnd() < 0.5;
    const qtySteps = 1 + Math.floor(this.#rnd() * Math.max(1, this.activity.maxLevelSteps / 10));
    this.state.exec((e, now) => {
      e.applyDepthDiff(this.symbol, { bids: this.#toLevels(db), asks: this.#toLevels(da) }, now);
      if (trade) {
        const price = this.#tick.mul(sellHits ? this.#midTicks - 1 : this.#midTicks + 1);
        e.applyTrade(this.symbol, { price, qty: this.#step.mul(qtySteps), isBuyerMaker: sellHits }, now);
      }
    });
    this.applied++;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * Starts the configured activity of one symbol; a replay reads `recording`, opened beforehand
 * (RecordingStream.open, which refuses a file it cannot replay). `onReplayedDiffs` runs after a
 * replay applied recorded diffs: they are the exchange's own 100 ms batches, so the streams send
 * them on at once rather than batching them again. `onReadFailure` runs when a replay's pass ends
 * because its recording could not be read on (cut short or corrupt).
 */
export function startFeed(state: ExchangeState, activity: MarketActivity, clock: Clock, recording: RecordingStream | undefined, onReplayedDiffs?: () => void, onReadFailure?: (err: Error) => void): MarketFeed {
  const sym = state.symbols.get(activity.symbol);
  if (!sym) throw new ConfigError('sandbox config', 'market', activity.symbol, 'not a configured symbol');
  if (activity.kind === 'replay') {
    if (!recording) throw new ConfigError('sandbox config', `market[${activity.symbol}].replay`, activity.file, 'the recording was not opened');
    return new ReplayFeed(state, sym, recording, activity.loop, activity.speed, clock, onReplayedDiffs, onReadFailure);
  }
  return new SyntheticFeed(state, activity, sym);
}

