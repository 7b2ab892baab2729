/** Symbol list parsing: wire symbols -> SymbolInfo with filters parsed once. */
import {
  OrderType,
  ParseError,
  StpMode,
  SymbolType,
  parseSymbolFilters,
  type OrderTypeName,
  type StpModeName,
  type SymbolInfo,
  type SymbolTypeCode,
  type WireFilter,
} from '../../core/index.js';
import { asArray, asObject, enumName, flag, int, listOf, str } from './fields.js';

/** Parses one symbol of `data.list`. */
export function parseSymbolInfo(v: unknown, where = 'symbol'): SymbolInfo {
  const o = asObject(where, v);
  const type = enumName(SymbolType, `${where}.type`, o.type);
  const filters = asArray(`${where}.filters`, o.filters ?? []).map((f, i) => {
    const fo = asObject(`${where}.filters[${i}]`, f);
    str(fo, 'filterType', `${where}.filters[${i}]`, false);
    return fo as WireFilter;
  });
  const orderTypes = asArray(`${where}.orderTypes`, o.orderTypes ?? []).map((t, i) => enumName(OrderType, `${where}.orderTypes[${i}]`, t)) as OrderTypeName[];
  const allowed = asArray(`${where}.allowedSelfTradePreventionModes`, o.allowedSelfTradePreventionModes ?? []).map((m, i) =>
    enumName(StpMode, `${where}.allowedSelfTradePreventionModes[${i}]`, m),
  ) as StpModeName[];
  return {
    type: SymbolType[type] as SymbolTypeCode,
    symbol: str(o, 'symbol', where, false),
    baseAsset: str(o, 'baseAsset', where, false),
    quoteAsset: str(o, 'quoteAsset', where, false),
    basePrecision: int(o, 'basePrecision', where),
    quotePrecision: int(o, 'quotePrecision', where),
    filters: parseSymbolFilters(filters, `${where}.filters`),
    orderTypes,
    // Symbol lists from before the STP revision lack these fields and the spec shows no default.
    // EXPIRE_MAKER (code 0) is assumed; the allowed list then stays empty, so a risk check that
    // consults it refuses explicit modes rather than guessing which ones the symbol accepts.
    defaultSelfTradePreventionMode: o.defaultSelfTradePreventionMode === undefined ? 'EXPIRE_MAKER' : enumName(StpMode, `${where}.defaultSelfTradePreventionMode`, o.defaultSelfTradePreventionMode),
    allowedSelfTradePreventionModes: allowed,
    icebergEnable: optionalFlag(o, 'icebergEnable', where),
    ocoEnable: optionalFlag(o, 'ocoEnable', where),
    spotTradingEnable: optionalFlag(o, 'spotTradingEnable', where),
    marginTradingEnable: optionalFlag(o, 'marginTradingEnable', where),
  };
}

/** An enable flag; absent means disabled, because enabling a feature the exchange did not state is the risky guess. */
function optionalFlag(o: Readonly<Record<string, unknown>>, key: string, where: string): boolean {
  return o[key] === undefined ? false : flag(o, key, where);
}

/** Parses the symbols payload (`data.list`, or a bare array). */
export function parseSymbols(data: unknown): SymbolInfo[] {
  const list = listOf('symbols', data);
  const out = list.map((s, i) => parseSymbolInfo(s, `symbols[${i}]`));
  const seen = new Set<string>();
  for (const s of out) {
    if (seen.has(s.symbol)) throw new ParseError('symbols', s.symbol, 'duplicate symbol in list');
    seen.add(s.symbol);
  }
  return out;
}
