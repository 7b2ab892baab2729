/**
 * The average prices a live or paper run checks PERCENT_PRICE and NOTIONAL (applyToMarket)
 * against: per symbol, the volume-weighted average of the public trades over each `avgPriceMins`
 * window its filters use (src/core/averagePrice.ts, the engine's semantics), fed by the trade
 * stream and warmed at start-up from REST aggregate trades, so the first minutes of a run are
 * checked against the same window the exchange uses and not against one trade.
 *
 * The spec has no average-price endpoint; aggregate trades with startTime are the only REST source
 * of a time window (recent trades take no time). An aggregate trade is trades of one order at one
 * price, so its price * summed quantity is exactly the sum of its trades' price * quantity.
 *
 * Joining REST and stream without double counting: stream trades are held back while a warm-up is
 * in flight, then only those with a trade id above the last trade id the REST answer covered
 * (aggregate `l`) are added. Trade ids grow with time on a symbol (the stream and REST share them).
 * After a stream reconnect the trades of the outage are fetched by id (recent trades from `fromId`)
 * the same way, so a dropped connection does not silently thin the window.
 */
import type { Decimal } from '../core/decimal.js';
import { AveragePriceWindow } from '../core/averagePrice.js';
import type { SymbolTypeCode } from '../core/enums.js';
import type { SourcedOptions } from './sourcedOptions.js';
import type { TradeEvent } from '../core/marketEvents.js';
import type { AggTrade, PublicTrade, SymbolInfo } from '../core/types.js';
import { compareTradeIds, nextTradeId, type TradeId } from '../core/tradeId.js';

/** The REST calls the warm-up (aggregate trades by time) and the reconnect backfill (trades by id) need; OpenClient has both. */
export interface TradeSource {
  aggTrades(params: { symbol: string; symbolType: SymbolTypeCode; startTime?: number; fromId?: TradeId; limit?: number }): Promise<AggTrade[]>;
  trades(params: { symbol: string; symbolType: SymbolTypeCode; fromId?: TradeId; limit?: number }): Promise<PublicTrade[]>;
}

/** Options of the average prices. */
export interface AveragePricesOptions extends SourcedOptions<TradeSource> {
  /** Most pages (of 1000 aggregate trades) one symbol's warm-up may fetch (default 50). */
  readonly maxPages?: number;
}

/** Page size of the aggregate-trades endpoint (its maximum). */
const PAGE = 1000;

interface SymbolWindow {
  readonly info: SymbolInfo;
  readonly window: AveragePriceWindow;
  /** Longest window (minutes) the symbol's filters use; 0 when they only need the last price. */
  readonly maxMins: number;
  /** Highest trade id already counted (undefined: none). */
  lastId: TradeId | undefined;
  /** Stream trades held back while a warm-up runs (undefined when none runs). */
  pending: TradeEvent[] | undefined;
  /**
   * Time from which the window holds every trade it should: -Infinity after a warm-up, the end of
   * one window after the stream started when the warm-up failed, Infinity before any warm-up.
   * Before it the average is unknown rather than built from part of the window.
   */
  completeAt: number;
}

/** Windowed average prices of a run's symbols. */
export class AveragePrices {
  readonly #o: AveragePricesOptions;
  readonly #symbols = new Map<string, SymbolWindow>();

  constructor(o: AveragePricesOptions) {
    this.#o = o;
    for (const info of o.symbols) {
      const mins = [info.filters.percentPrice?.avgPriceMins ?? 0, info.filters.notional?.avgPriceMins ?? 0].filter((m) => m > 0);
      // Until the first warm-up, stream trades wait: adding them first would leave the REST trades
      // before them uncountable (the window takes trades oldest first).
      this.#symbols.set(info.symbol, { info, window: new AveragePriceWindow(mins), maxMins: Math.max(0, ...mins), lastId: undefined, pending: [], completeAt: Infinity });
    }
  }

  /**
   * The average over `mins` minutes (0: the last trade price). Undefined while it is unknown: no
   * trade seen yet, or the window was never filled from REST (warm-up failed) and the run has not
   * yet watched the stream for a whole window. The risk checker then skips the filter and the
   * exchange decides: refusing every order for minutes would stop trading on a data problem,
   * and a price made up from part of the window could accept what the exchange refuses.
   */
  avgPrice(symbol: string, mins: number): Decimal | undefined {
    const s = this.#symbols.get(symbol);
    if (s === undefined) return undefined;
    const now = this.#o.now();
    return now >= s.completeAt ? s.window.average(mins, now) : undefined;
  }

  /** Feeds one stream trade (duplicates and trades a warm-up already counted are skipped). */
  onTrade(ev: TradeEvent): void {
    const s = this.#symbols.get(ev.symbol);
    if (s === undefined) return;
    if (s.pending !== undefined) s.pending.push(ev);
    else this.#add(s, ev);
  }

  /**
   * Fills every symbol's window from REST (aggregate trades since the start of its longest window,
   * or the most recent one when only the last price is needed), then adds the stream trades that
   * arrived meanwhile. Call once the trade stream is connected, so no trade falls between the two.
   * A failed symbol is logged and its average stays unknown until the stream has covered a window.
   */
  async warmUp(): Promise<void> {
    await Promise.all([...this.#symbols.values()].map((s) => this.#warm(s)));
  }

  /**
   * After a stream reconnect: fetches the trades the outage may have hidden (by trade id, from the
   * last one counted) and joins the stream again as the warm-up does. When that fails the window
   * may miss trades, so its average is unknown until the stream alone has covered a whole window.
   */
  async backfill(symbols: readonly string[]): Promise<void> {
    await Promise.all(
      symbols.map((name) => {
        const s = this.#symbols.get(name);
        // A symbol still warming up (or never warmed) gets its window from the warm-up.
        if (s === undefined || s.pending !== undefined) return undefined;
        if (s.lastId === undefined) {
          s.pending = [];
          return this.#warm(s);
        }
        return this.#fill(s);
      }),
    );
  }

  async #fill(s: SymbolWindow): Promise<void> {
    s.pending = [];
    const startedAt = this.#o.now();
    const { symbol, type } = s.info;
    try {
      for (let n = 0; ; n++) {
        if (n >= (this.#o.maxPages ?? 50)) throw new RangeError(`more than ${n * PAGE} trades since trade id ${s.lastId}`);
        const page = await this.#o.source.trades({ symbol, symbolType: type, fromId: s.lastId === undefined ? undefined : nextTradeId(s.lastId), limit: PAGE });
        for (const t of page) {
          if (counted(s, t.id)) continue;
          s.window.add(t.time, t.price, t.qty);
          s.lastId = t.id;
        }
        if (page.length < PAGE) break;
      }
    } catch (err) {
      this.#o.log.warn({ symbol, err: err instanceof Error ? err.message : String(err) }, 'could not backfill the average-price window after a reconnect; PERCENT_PRICE and NOTIONAL(applyToMarket) are left to the exchange until the stream has covered a whole window');
      s.completeAt = Math.max(s.completeAt, startedAt + s.maxMins * 60_000);
    }
    this.#drain(s);
  }

  async #warm(s: SymbolWindow): Promise<void> {
    const startedAt = this.#o.now();
    const { symbol, type } = s.info;
    try {
      const got: AggTrade[] = [];
      if (s.maxMins > 0) {
        let page = await this.#o.source.aggTrades({ symbol, symbolType: type, startTime: startedAt - s.maxMins * 60_000, limit: PAGE });
        got.push(...page);
        for (let n = 1; page.length === PAGE; n++) {
          if (n >= (this.#o.maxPages ?? 50)) throw new RangeError(`more than ${n * PAGE} aggregate trades in ${s.maxMins} minutes`);
          page = await this.#o.source.aggTrades({ symbol, symbolType: type, fromId: nextTradeId((page[page.length - 1] as AggTrade).aggId), limit: PAGE });
          got.push(...page);
        }
      }
      // An empty window averages to the last price, which may be older than the window.
      if (got.length === 0) got.push(...(await this.#o.source.aggTrades({ symbol, symbolType: type, limit: 1 })));
      for (const a of got) {
        if (counted(s, a.lastTradeId)) continue;
        s.window.add(a.time, a.price, a.qty);
        s.lastId = a.lastTradeId;
      }
      s.completeAt = -Infinity;
    } catch (err) {
      this.#o.log.warn({ symbol, err: err instanceof Error ? err.message : String(err) }, 'could not warm the average-price window from REST; PERCENT_PRICE and NOTIONAL(applyToMarket) are left to the exchange until the stream has covered a whole window');
      // The stream was connected before the warm-up began: from then on it has every trade.
      s.completeAt = startedAt + s.maxMins * 60_000;
    }
    this.#drain(s);
  }

  /** Adds the stream trades held back meanwhile and lets new ones through. */
  #drain(s: SymbolWindow): void {
    const held = s.pending ?? [];
    s.pending = undefined;
    for (const ev of held) this.#add(s, ev);
  }

  #add(s: SymbolWindow, ev: TradeEvent): void {
    if (counted(s, ev.tradeId)) return;
    s.window.add(ev.tradeTime, ev.price, ev.qty);
    s.lastId = ev.tradeId;
  }
}

/** True when trade `id` is at or below the last one the window counted (ids are exact digit strings: compared numerically). */
function counted(s: SymbolWindow, id: TradeId): boolean {
  return s.lastId !== undefined && compareTradeIds(id, s.lastId) <= 0;
}
