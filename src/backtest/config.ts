/**
 * The backtest configuration (YAML, `mode: backtest`), validated with zod. Errors name the file,
 * the path in the document and the value. Relative file paths resolve against the folder of the
 * YAML file, so a config works from any working directory.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { isKlineInterval, type KlineIntervalName } from '../core/enums.js';
// The risk section is src/config's, so a strategy's limits mean the same in every mode.
import { riskSchema } from '../config/schema.js';

const decimalString = z.union([z.string().regex(/^\d+(\.\d+)?$/), z.number().nonnegative()]).transform((v) => String(v));
const symbolName = z.string().regex(/^[A-Z0-9]+_[A-Z0-9]+$/, 'expected BASE_QUOTE, e.g. BTC_USDT');

const wireFilter = z.looseObject({ filterType: z.string() });

/** Schema of the backtest YAML. */
export const backtestConfigSchema = z.looseObject({
  mode: z.literal('backtest').default('backtest'),
  name: z.string().min(1).default('backtest'),
  symbols: z.record(symbolName, z.object({ filters: z.array(wireFilter).default([]) })).default({}),
  strategies: z
    .array(
      z.object({
        name: z.string().min(1),
        plugin: z.string().min(1),
        symbols: z.array(symbolName).min(1),
        budget: z.record(z.string(), decimalString).default({}),
        params: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .min(1),
  risk: riskSchema.default({ mode: 'reject' }),
  backtest: z.object({
    recordings: z.array(z.object({ symbol: symbolName, files: z.array(z.string()).min(1) })).default([]),
    candles: z.array(z.object({ symbol: symbolName, interval: z.string().refine(isKlineInterval, 'unknown kline interval'), files: z.array(z.string()).min(1) })).default([]),
    latency: z.object({ entryMs: z.number().min(0).default(0), cancelMs: z.number().min(0).default(0), ackMs: z.number().min(0).default(0) }).default({ entryMs: 0, cancelMs: 0, ackMs: 0 }),
    fees: z.object({ makerBps: z.number().min(0).default(10), takerBps: z.number().min(0).default(10) }).default({ makerBps: 10, takerBps: 10 }),
    /** Engine account balances; default: the sum of the strategies' budgets. */
    balances: z.record(z.string(), decimalString).optional(),
    equityIntervalMs: z.number().int().positive().default(1000),
    timerMs: z.number().int().min(0).default(0),
    output: z.string().optional(),
  }),
});

/** A parsed config with absolute file paths. */
export type BacktestConfig = z.infer<typeof backtestConfigSchema> & { readonly file: string; readonly dir: string };

/** Candle source with a checked interval. */
export type CandleSource = { symbol: string; interval: KlineIntervalName; files: string[] };

/** Validates a parsed YAML document; `file` is used in messages and to resolve relative paths. */
export function parseBacktestConfig(doc: unknown, file: string): BacktestConfig {
  const r = backtestConfigSchema.safeParse(doc);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.join('.') ?? '';
    let value: unknown = doc;
    for (const k of issue?.path ?? []) value = typeof value === 'object' && value !== null ? (value as Record<string | number, unknown>)[k as string | number] : undefined;
    throw new ConfigError(file, where || '(root)', value, issue?.message ?? 'invalid');
  }
  const cfg = r.data;
  const dir = path.dirname(path.resolve(file));
  const abs = (f: string): string => path.resolve(dir, f);
  if (cfg.backtest.recordings.length === 0 && cfg.backtest.candles.length === 0) throw new ConfigError(file, 'backtest', cfg.backtest, 'needs recordings or candles');
  for (const [i, s] of cfg.strategies.entries()) for (const sym of s.symbols) if (!(sym in cfg.symbols) && cfg.backtest.recordings.length > 0) throw new ConfigError(file, `strategies.${i}.symbols`, sym, 'not listed under symbols (its filters are needed)');
  return {
    ...cfg,
    backtest: {
      ...cfg.backtest,
      recordings: cfg.backtest.recordings.map((r2) => ({ ...r2, files: r2.files.map(abs) })),
      candles: cfg.backtest.candles.map((c) => ({ ...c, files: c.files.map(abs) })),
      output: cfg.backtest.output === undefined ? undefined : abs(cfg.backtest.output),
    },
    file: path.resolve(file),
    dir,
  };
}

/** Reads and validates a backtest YAML file. */
export function loadBacktestConfig(file: string): BacktestConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, '(file)', undefined, `cannot read: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(file, '(root)', undefined, `invalid YAML: ${(err as Error).message}`);
  }
  return parseBacktestConfig(doc, file);
}
