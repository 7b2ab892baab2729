/**
 * The backtest configuration (YAML, `mode: backtest`, the mode a document without one gets). It
 * is the one configuration schema of src/config (also used by `kancil run` and published as
 * config/schema.json), narrowed to what a backtest needs: the backtest section. Errors name the
 * file, the path in the document, the value and (for files) the line. Relative file paths resolve
 * against the folder of the YAML file, so a config works from any working directory.
 */
import { loadConfig, parseConfig, parseConfigValue, type ConfigMode, type LoadedConfig, type RunConfiguration } from '../config/loadConfig.js';
import type { KlineIntervalName } from '../core/enums.js';

/** A parsed config with absolute file paths. */
export type BacktestConfig = RunConfiguration & { readonly mode: 'backtest'; readonly backtest: NonNullable<RunConfiguration['backtest']> };

/** Candle source with a checked interval. */
export type CandleSource = { symbol: string; interval: KlineIntervalName; files: string[] };

const OPTIONS = { modes: ['backtest'] as readonly ConfigMode[], defaultMode: 'backtest' as const };

function narrow({ config, source }: LoadedConfig): BacktestConfig {
  // src/config checked the section is there for mode backtest; the check narrows the type.
  if (config.mode !== 'backtest' || !config.backtest) throw source.error(['backtest'], 'mode backtest needs a backtest section', { value: undefined });
  // A backtest without a name is called "backtest" in reports (the schema's default is "run").
  const name = source.valueAt(['name']) === undefined ? 'backtest' : config.name;
  // A strategy on a symbol without data would run, never trade and exit 0, as if it had found nothing to do.
  const bt = config.backtest;
  const withData = new Set([...bt.recordings.map((r) => r.symbol), ...bt.candles.map((c) => c.symbol)]);
  config.strategies.forEach((s, i) =>
    s.symbols.forEach((sym, j) => {
      if (!withData.has(sym)) throw source.error(['strategies', i, 'symbols', j], `no data for this symbol: backtest.${bt.candles.length > 0 ? 'candles' : 'recordings'} has ${[...withData].join(', ') || 'none'}`);
    }),
  );
  return { ...config, name, mode: 'backtest', backtest: config.backtest };
}

/** Validates a parsed YAML document; `file` is used in messages and to resolve relative paths. */
export function parseBacktestConfig(doc: unknown, file: string): BacktestConfig {
  return narrow(parseConfigValue(doc, file, OPTIONS));
}

/** Reads and validates a backtest YAML file. */
export function loadBacktestConfig(file: string): BacktestConfig {
  return narrow(loadConfig(file, OPTIONS));
}

/** Validates a backtest config given as YAML text, as if read from `file` (relative paths resolve against its folder). */
export function parseBacktestConfigText(text: string, file: string): BacktestConfig {
  return narrow(parseConfig(text, file, OPTIONS));
}
