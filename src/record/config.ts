/**
 * `kancil record` configuration (YAML), validated with zod; errors name the file, the path in
 * the document, the value and the line.
 */
import { z } from 'zod';
import { timerMs } from '../config/schema.js';
import { loadYamlFile } from '../config/yamlFile.js';

const url = z.string().regex(/^(https?|wss?):\/\//, 'must be an http(s) or ws(s) URL');

/** Schema of the recorder configuration. */
export const RecordConfigSchema = z.strictObject({
  /** Output directory. */
  out: z.string().min(1).default('backtest-data/recordings'),
  /** File name prefix (default: the first symbol). */
  prefix: z.string().regex(/^[A-Za-z0-9_.-]+$/).optional(),
  /** Exchange addresses under the spec's placeholder names. */
  urls: z.strictObject({
    base_url: url,
    market_url: url,
    depth_url: url,
    stream_url: url,
    stream_url_next: url.optional(),
    stream_url_new: url.optional(),
  }),
  symbols: z.array(z.strictObject({ symbol: z.string().regex(/^[A-Z0-9]+_[A-Z0-9]+$/, 'BASE_QUOTE form'), type: z.union([z.literal(1), z.literal(2), z.literal(3)]) })).min(1),
  /** Stream name suffixes recorded for every symbol: depth@100ms, trade, aggTrade, kline_1m, miniTicker, depth20, bookTicker… */
  streams: z.array(z.string().regex(/^[A-Za-z0-9_@]+$/)).min(1).default(['depth@100ms', 'trade']),
  /** Whole stream names recorded as well, e.g. '!miniTicker@arr' (on the type 1 host). */
  extraStreams: z.array(z.string()).default([]),
  snapshot: z.strictObject({ everyMs: timerMs(0).default(600_000), limit: z.union([z.literal(5), z.literal(10), z.literal(20), z.literal(50), z.literal(100), z.literal(500), z.literal(1000), z.literal(5000)]).default(1000) }).default({ everyMs: 600_000, limit: 1000 }),
  rotate: z.strictObject({ maxBytes: z.number().int().positive().default(256 * 1024 * 1024), maxMs: z.number().int().positive().default(3_600_000) }).default({ maxBytes: 256 * 1024 * 1024, maxMs: 3_600_000 }),
  /** Print a JSON status line to stdout this often (0: never). */
  statusEveryMs: timerMs(0).default(0),
});

/** A validated recorder configuration. */
export type RecordConfig = z.infer<typeof RecordConfigSchema>;

/** Reads and validates a recorder YAML file. */
export function loadRecordConfig(file: string): RecordConfig {
  return loadYamlFile(file, RecordConfigSchema);
}
