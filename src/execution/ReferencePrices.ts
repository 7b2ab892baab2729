/**
 * PRICE_RANGE execution rules and reference prices of a live or paper run, so the risk gate checks
 * PRICE_RANGE locally instead of letting the exchange expire the order's taker phase.
 *
 * Decisions where the spec is silent:
 * - The rule applies to symbol type 1 only (spec), so only those are asked for.
 * - Reference prices are polled over REST (`GET /api/v3/referencePrice`) every `refreshMs`. The
 *   `<symbol>@referencePrice` stream exists, but its payload is "not shown": a client that guessed
 *   its fields could read a wrong price without noticing, while the REST object is specified.
 * - A price is fresh for `maxAgeMs` after the answer that gave it arrived (our clock, not the
 *   answer's `timestamp`, which says when the exchange computed it, not whether it still holds).
 *   A stale price is treated as unknown: the gate skips PRICE_RANGE and the exchange decides,
 *   logged once per symbol each time it goes stale. Checking against an old price could refuse
 *   good orders or pass bad ones after the exchange moved its reference.
 * - A null reference price means the exchange checks nothing, and the gate checks nothing either.
 * - If the rules cannot be fetched at start-up the run goes on without local PRICE_RANGE checks
 *   (logged): the exchange still enforces the rule, so an order can expire but never trade outside.
 */
import type { Decimal } from '../core/decimal.js';
import { marketSymbol } from '../core/symbols.js';
import type { PriceRangeRule, ReferencePrice } from '../core/types.js';
import type { ExecutionRules } from '../exchange/parse/records.js';
import type { SourcedOptions } from './sourcedOptions.js';

/** The REST calls needed (OpenClient). */
export interface ReferencePriceSource {
  executionRules(params: { symbols: string[] }): Promise<ExecutionRules>;
  referencePrice(symbol: string): Promise<ReferencePrice>;
}

/** Options of the reference prices. */
export interface ReferencePricesOptions extends SourcedOptions<ReferencePriceSource> {
  /** Poll period of the reference prices (default 10 s). */
  readonly refreshMs?: number;
  /** Age after which a fetched reference price is no longer used (default 30 s). */
  readonly maxAgeMs?: number;
  /** Called with every newly fetched value (paper mode keeps the matching engine's reference in step). */
  readonly onPrice?: (symbol: string, price: Decimal | null) => void;
}

/** At most this many symbols per executionRules request (spec: `symbols` capped at 40). */
const RULES_BATCH = 40;

interface Held {
  price: Decimal | null;
  fetchedAt: number;
  staleLogged: boolean;
}

/** Execution rules and fresh reference prices of a run's type 1 symbols. */
export class ReferencePrices {
  readonly #o: ReferencePricesOptions;
  readonly #held = new Map<string, Held>();
  #ranges: PriceRangeRule[] = [];
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;

  constructor(o: ReferencePricesOptions) {
    this.#o = o;
  }

  /** The PRICE_RANGE rules fetched at start-up, keyed by the BASE_QUOTE symbol name. */
  get priceRanges(): readonly PriceRangeRule[] {
    return this.#ranges;
  }

  /** Fetches the rules and the first reference prices, then polls the prices until `stop`. */
  async start(): Promise<void> {
    const type1 = this.#o.symbols.filter((s) => s.type === 1);
    // The market host spells type 1 symbols without the underscore; rules are mapped back.
    const byWire = new Map(type1.map((s) => [marketSymbol(s.symbol, 1).toUpperCase(), s.symbol]));
    try {
      const ranges: PriceRangeRule[] = [];
      for (let i = 0; i < type1.length; i += RULES_BATCH) {
        const rules = await this.#o.source.executionRules({ symbols: type1.slice(i, i + RULES_BATCH).map((s) => s.symbol) });
        for (const r of rules.priceRange) {
          const name = byWire.get(r.symbol.toUpperCase()) ?? (type1.some((s) => s.symbol === r.symbol) ? r.symbol : undefined);
          if (name !== undefined) ranges.push({ ...r, symbol: name });
        }
      }
      this.#ranges = ranges;
    } catch (err) {
      this.#o.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not fetch the PRICE_RANGE execution rules; the exchange alone enforces them this run');
      return;
    }
    if (this.#ranges.length === 0) return;
    await this.refresh();
    const t = setInterval(() => void this.refresh(), this.#o.refreshMs ?? 10_000);
    t.unref();
    this.#timer = t;
  }

  /** Fetches every ruled symbol's reference price once (a refresh already running is joined). */
  refresh(): Promise<void> {
    this.#refreshing ??= Promise.all(this.#ranges.map((r) => this.#fetch(r.symbol))).then(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /**
   * The reference price to check PRICE_RANGE against: null when the exchange has none set,
   * undefined when unknown or older than `maxAgeMs` (the check is then left to the exchange).
   */
  referencePrice(symbol: string): Decimal | null | undefined {
    const h = this.#held.get(symbol);
    if (h === undefined) return undefined;
    const age = this.#o.now() - h.fetchedAt;
    if (age > (this.#o.maxAgeMs ?? 30_000)) {
      if (!h.staleLogged) {
        h.staleLogged = true;
        this.#o.log.warn({ symbol, ageMs: age, price: h.price?.toFixed() ?? null }, 'reference price is stale; PRICE_RANGE is left to the exchange until a refresh succeeds');
      }
      return undefined;
    }
    return h.price;
  }

  /** Stops polling (an answer in flight is still recorded). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #fetch(symbol: string): Promise<void> {
    try {
      const r = await this.#o.source.referencePrice(symbol);
      const prev = this.#held.get(symbol);
      const price = r.referencePrice;
      // The same object while the value holds, so the risk checker's per-price cache stays valid.
      const same = prev !== undefined && (prev.price === null ? price === null : price !== null && prev.price.eq(price));
      this.#held.set(symbol, { price: same ? prev.price : price, fetchedAt: this.#o.now(), staleLogged: false });
      if (!same) this.#o.onPrice?.(symbol, price);
    } catch (err) {
      this.#o.log.warn({ symbol, err: err instanceof Error ? err.message : String(err) }, 'could not refresh the reference price');
    }
  }
}
