/** Symbol spelling rules of the spec. */
import type { SymbolTypeCode } from './enums.js';

/** `BTC_IDR` -> `BTCIDR`: type 1 symbols on the market-data host drop the underscore. */
export function marketSymbol(symbol: string, type: SymbolTypeCode): string {
  return type === 1 ? symbol.replace('_', '') : symbol;
}

/** Stream names use the lower-case symbol, with the underscore removed for type 1. */
export function streamSymbol(symbol: string, type: SymbolTypeCode): string {
  return marketSymbol(symbol, type).toLowerCase();
}

/** The key under which every spelling of a symbol matches: BTC_IDR, BTCIDR and btcidr give BTCIDR. */
export function symbolKey(symbol: string): string {
  return symbol.replace(/_/g, '').toUpperCase();
}

/** True when `symbol` is `BASE_QUOTE` with both assets non-empty (the first underscore splits it). */
export function isBaseQuote(symbol: string): boolean {
  const i = symbol.indexOf('_');
  return i > 0 && i < symbol.length - 1;
}

/** Splits `BASE_QUOTE` into its assets; throws RangeError when either is empty (`BTC_`, `_IDR`, `BTCIDR`). */
export function splitSymbol(symbol: string): { base: string; quote: string } {
  // An empty quote would make every quote-asset rule (balances, fees, the /v1 IDR check) read ''.
  if (!isBaseQuote(symbol)) throw new RangeError(`symbol ${JSON.stringify(symbol)} is not in BASE_QUOTE form`);
  const i = symbol.indexOf('_');
  return { base: symbol.slice(0, i), quote: symbol.slice(i + 1) };
}
