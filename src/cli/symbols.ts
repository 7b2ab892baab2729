/** `kancil symbols`: the symbol list with the filters that decide whether an order is valid. */
import type { SymbolInfo } from '../core/index.js';
import { EXCHANGE_OPTIONS_USAGE } from './args.js';
import { ExitCode } from './command.js';
import { exchangeCommand } from './openClientFromArgs.js';
import { formatTable } from './table.js';
import { counted } from '../core/plural.js';

/** Wire-like JSON of one symbol: decimals as strings, so nothing is rounded on the way out. */
function toJson(s: SymbolInfo): Record<string, unknown> {
  const f = s.filters;
  return {
    symbol: s.symbol,
    type: s.type,
    baseAsset: s.baseAsset,
    quoteAsset: s.quoteAsset,
    tickSize: f.priceFilter?.tickSize.toFixed(),
    stepSize: f.lotSize?.stepSize.toFixed(),
    minQty: f.lotSize?.minQty.toFixed(),
    minNotional: f.notional?.minNotional.toFixed(),
    orderTypes: s.orderTypes,
    spotTradingEnable: s.spotTradingEnable,
  };
}

/** The `symbols` command. */
export const command = exchangeCommand(
  `Usage: kancil symbols [options]

Lists the symbols of GET /open/v1/common/symbols with tick size, step size and minimum notional.

${EXCHANGE_OPTIONS_USAGE}`,
  async (client, values, io) => {
    const rows = (await client.symbols()).map(toJson);
    if (values.json) {
      io.stdout(`${JSON.stringify(rows)}\n`);
      return ExitCode.OK;
    }
    const header = ['symbol', 'type', 'tickSize', 'stepSize', 'minNotional', 'trading'];
    io.stdout(formatTable(header, rows.map((r) => [r.symbol, r.type, r.tickSize ?? '-', r.stepSize ?? '-', r.minNotional ?? '-', r.spotTradingEnable ? 'yes' : 'no'].map(String))));
    io.stdout(`${counted(rows.length, 'symbol')}\n`);
    return ExitCode.OK;
  },
);
