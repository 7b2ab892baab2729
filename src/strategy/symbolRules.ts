/**
 * A symbol's exchange rules as a strategy reads them (`ctx.rules(symbol)`): tick size, step size,
 * quantity and notional bounds from the symbol's filters, and exact rounding onto the grids. A
 * strategy that rounds with these places orders the risk checker and the exchange accept, without
 * repeating the exchange's filters as its own parameters. An absent filter (or a zero step) is a
 * rule that is not enforced, so its helpers leave values unchanged.
 */
import { Decimal, ZERO, ceilToStep, floorToStep, isMultipleOf } from '../core/decimal.js';
import type { SymbolFilters } from '../core/filters.js';
import { splitSymbol } from '../core/symbols.js';

/** A decimal given as a Decimal or its exact text (a number is taken as its shortest decimal text). */
export type DecimalInput = Decimal | string | number;

/** How a value is put on a grid: toward zero (down), away from it (up), or to the nearest step (half up). */
export type RoundMode = 'down' | 'up' | 'nearest';

/** One symbol's rules and exact rounding helpers. */
export interface SymbolRules {
  readonly symbol: string;
  readonly baseAsset: string;
  readonly quoteAsset: string;
  /** PRICE_FILTER tickSize (0: any price). */
  readonly tickSize: Decimal;
  /** LOT_SIZE stepSize (0: any quantity). */
  readonly stepSize: Decimal;
  /** MARKET_LOT_SIZE stepSize when the symbol has one, else stepSize. */
  readonly marketStepSize: Decimal;
  readonly minPrice: Decimal;
  /** 0: no maximum. */
  readonly maxPrice: Decimal;
  readonly minQty: Decimal;
  /** 0: no maximum. */
  readonly maxQty: Decimal;
  /** NOTIONAL minNotional (price x quantity), 0 when none. */
  readonly minNotional: Decimal;
  /** 0: no maximum. */
  readonly maxNotional: Decimal;
  /** Decimals of tickSize (what a price needs to be written exactly). */
  readonly priceDecimals: number;
  /** Decimals of stepSize. */
  readonly qtyDecimals: number;
  /** A price on the tick grid (default: down). */
  roundPrice(price: DecimalInput, mode?: RoundMode): Decimal;
  /** A quantity on the step grid (default: down, so it never exceeds what was meant). */
  roundQty(qty: DecimalInput, mode?: RoundMode): Decimal;
  /** A price as text with exactly priceDecimals decimals. */
  priceText(price: DecimalInput): string;
  /** A quantity as text with exactly qtyDecimals decimals. */
  qtyText(qty: DecimalInput): string;
  /** The smallest quantity on the step grid whose notional at `price` meets minNotional and minQty. */
  minQtyAt(price: DecimalInput): Decimal;
  /**
   * Why the exchange would refuse a limit order of this price and quantity by these rules (the
   * filter's name and the bound), or undefined when it passes them.
   */
  check(price: DecimalInput, qty: DecimalInput): string | undefined;
}

function decimalsOf(step: Decimal): number {
  return step.isZero() ? 0 : step.decimalPlaces();
}

function round(v: Decimal, step: Decimal, mode: RoundMode): Decimal {
  if (step.isZero()) return v;
  if (mode === 'down') return floorToStep(v, step);
  if (mode === 'up') return ceilToStep(v, step);
  return v.div(step).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).mul(step);
}

/** The rules of `symbol` from its parsed filters (a symbol the run has no filters for gets none). */
export function symbolRules(symbol: string, filters: SymbolFilters = {}): SymbolRules {
  const { base, quote } = splitSymbol(symbol);
  const pf = filters.priceFilter;
  const lot = filters.lotSize;
  const tickSize = pf?.tickSize ?? ZERO;
  const stepSize = lot?.stepSize ?? ZERO;
  const minQty = lot?.minQty ?? ZERO;
  const minNotional = filters.notional?.minNotional ?? ZERO;
  const priceDecimals = decimalsOf(tickSize);
  const qtyDecimals = decimalsOf(stepSize);
  const rules: SymbolRules = {
    symbol,
    baseAsset: base,
    quoteAsset: quote,
    tickSize,
    stepSize,
    marketStepSize: filters.marketLotSize?.stepSize ?? stepSize,
    minPrice: pf?.minPrice ?? ZERO,
    maxPrice: pf?.maxPrice ?? ZERO,
    minQty,
    maxQty: lot?.maxQty ?? ZERO,
    minNotional,
    maxNotional: filters.notional?.maxNotional ?? ZERO,
    priceDecimals,
    qtyDecimals,
    roundPrice: (price, mode = 'down') => round(new Decimal(price), tickSize, mode),
    roundQty: (qty, mode = 'down') => round(new Decimal(qty), stepSize, mode),
    priceText: (price) => new Decimal(price).toFixed(priceDecimals),
    qtyText: (qty) => new Decimal(qty).toFixed(qtyDecimals),
    minQtyAt: (price) => {
      const p = new Decimal(price);
      const byNotional = minNotional.isZero() || p.isZero() ? ZERO : minNotional.div(p);
      return round(Decimal.max(byNotional, minQty), stepSize, 'up');
    },
    check: (price, qty) => {
      const p = new Decimal(price);
      const q = new Decimal(qty);
      if (pf !== undefined) {
        if (!pf.minPrice.isZero() && p.lt(pf.minPrice)) return `PRICE_FILTER: price ${p.toFixed()} below minPrice ${pf.minPrice.toFixed()}`;
        if (!pf.maxPrice.isZero() && p.gt(pf.maxPrice)) return `PRICE_FILTER: price ${p.toFixed()} above maxPrice ${pf.maxPrice.toFixed()}`;
        if (!isMultipleOf(p, tickSize)) return `PRICE_FILTER: price ${p.toFixed()} not a multiple of tickSize ${tickSize.toFixed()}`;
      }
      if (lot !== undefined) {
        if (q.lt(lot.minQty)) return `LOT_SIZE: quantity ${q.toFixed()} below minQty ${lot.minQty.toFixed()}`;
        if (!lot.maxQty.isZero() && q.gt(lot.maxQty)) return `LOT_SIZE: quantity ${q.toFixed()} above maxQty ${lot.maxQty.toFixed()}`;
        if (!isMultipleOf(q, stepSize)) return `LOT_SIZE: quantity ${q.toFixed()} not a multiple of stepSize ${stepSize.toFixed()}`;
      }
      const n = filters.notional;
      if (n !== undefined) {
        const v = p.mul(q);
        if (v.lt(n.minNotional)) return `NOTIONAL: ${v.toFixed()} below minNotional ${n.minNotional.toFixed()}`;
        if (!n.maxNotional.isZero() && v.gt(n.maxNotional)) return `NOTIONAL: ${v.toFixed()} above maxNotional ${n.maxNotional.toFixed()}`;
      }
      return undefined;
    },
  };
  return rules;
}

/**
 * A grid step a strategy uses: the parameter when the config gives one, else the symbol's own rule
 * (`ctx.rules(symbol).tickSize` or `.stepSize`), else `fallback` when the run has no filters for the
 * symbol (a rule of 0), so one default fits BTC_IDR's rupiah ticks and BTC_USDT's cents alike.
 */
export function givenOrRule(given: DecimalInput | undefined, rule: Decimal, fallback: DecimalInput): Decimal {
  if (given !== undefined) return new Decimal(given);
  return rule.isZero() ? new Decimal(fallback) : rule;
}
