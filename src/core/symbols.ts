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

/** Splits `BASE_QUOTE` into its assets. */
export function splitSymbol(symbol: string): { base: string; quote: string } {
  const i = symbol.indexOf('_');
  if (i <= 0) throw new RangeError(`symbol ${JSON.stringify(symbol)} is not in BASE_QUOTE form`);
  return { base: symbol.slice(0, i), quote: symbol.slice(i + 1) };
}
