/**
 * Order entry, cancel and response latency of the simulated venue (backtest and paper). Each of
 * the three is a constant, a seeded log-normal draw given by its median and 99th percentile, or
 * recorded latencies (a text file of milliseconds, one a line) drawn from at random (seeded) or
 * used in the file's order: the n-th order gets the n-th value, so a backtest can repeat the
 * latency each order of a live run had. The same seed, the same draws: a backtest stays
 * byte-identical run after run. Draws are rounded to whole
 * milliseconds, the grid of the exchange's own times (and of the virtual clock).
 *
 * Requests and reports keep their order (one connection each way, as a real client has): a draw
 * that would make a request reach the engine before the previous one, or a report reach the bus
 * before the previous one, is raised to that one's time (see SimVenue).
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../core/errors.js';
import { mulberry32 } from '../core/random.js';

/** One latency as configured: ms, a log-normal by median and p99, or a file of recorded values. */
export type LatencySpec = number | { readonly median: number; readonly p99: number } | { readonly file: string; readonly order?: LatencyFileOrder };

/** How values of a latency file are used: drawn at random (seeded), or one after another in the file's order. */
export type LatencyFileOrder = 'random' | 'recorded';

/** The three latencies of a venue and the seed of their draws. */
export interface LatencySettings {
  /** Submit -> order reaches the engine. */
  readonly entryMs: LatencySpec;
  /** Cancel submit -> cancel reaches the engine. */
  readonly cancelMs: LatencySpec;
  /** Engine report -> event on the bus. */
  readonly ackMs: LatencySpec;
  /**
   * Added to `ackMs` for what reaches a live run only over the user data stream: the reports of
   * what the market did to a resting order (its fills, an expiry). kancil's live user streams hold
   * an event only after a gap or reordering (see SimVenue). Default 0.
   */
  readonly streamHoldMs?: number;
  readonly seed?: number;
}

/**
 * Defaults of backtest and paper (ms): the median one-way feed latency of the recordings above
 * their fastest message (depth diffs 4.1 ms on the 11-minute BTCUSDT files, 3.9 ms on ETHUSDT; see
 * src/backtest/README.md, "Latency"), taken for each one-way trip of an order: entry, cancel, report.
 */
export const DEFAULT_LATENCY_MS = 4;

/** Draws latencies (ms) for a venue. */
export interface LatencyModel {
  entry(): number;
  cancel(): number;
  ack(): number;
  /** The constant extra delay of user-stream-only reports (LatencySettings.streamHoldMs; absent: 0). */
  readonly streamHoldMs?: number;
}

/** z of the 99th percentile of a standard normal. */
const Z99 = 2.3263478740408408;

/** Reads a recorded latency file: non-negative ms, one a line; blank lines and `#` comments skipped. */
export function readLatencyFile(file: string, field: string): number[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, field, file, `cannot read the latency file (${(err as Error).message})`);
  }
  const out: number[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const v = Number(line);
    if (!/^\d+(\.\d+)?$/.test(line) || !Number.isFinite(v)) throw new ConfigError(file, `${field} line ${i + 1}`, line, 'expected a non-negative number of milliseconds');
    out.push(v);
  }
  if (out.length === 0) throw new ConfigError(file, field, file, 'the latency file holds no value');
  return out;
}

/** One latency's draw function. */
function drawOf(spec: LatencySpec, rnd: () => number, field: string): () => number {
  if (typeof spec === 'number') {
    if (!(Number.isFinite(spec) && spec >= 0)) throw new RangeError(`${field} must be a non-negative number, got ${String(spec)}`);
    return () => spec;
  }
  if ('file' in spec) {
    const xs = readLatencyFile(spec.file, field);
    if (spec.order === 'recorded') {
      let i = 0;
      return () => Math.round(xs[i++ % xs.length] as number);
    }
    return () => Math.round(xs[Math.floor(rnd() * xs.length)] as number);
  }
  const { median, p99 } = spec;
  if (!(median > 0 && p99 >= median)) throw new RangeError(`${field}: need 0 < median <= p99, got median ${median}, p99 ${p99}`);
  const mu = Math.log(median);
  const sigma = Math.log(p99 / median) / Z99;
  return () => {
    // Box-Muller; 1 - u keeps the log's argument in (0, 1].
    const z = Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    return Math.round(Math.exp(mu + sigma * z));
  };
}

/** The latency model of settings: one seeded stream per latency, so adding cancels does not move entry draws. */
export function latencyModel(s: LatencySettings): LatencyModel {
  const seed = s.seed ?? 1;
  const hold = s.streamHoldMs ?? 0;
  if (!(Number.isFinite(hold) && hold >= 0)) throw new RangeError(`latency.streamHoldMs must be a non-negative number, got ${String(hold)}`);
  return {
    entry: drawOf(s.entryMs, mulberry32(seed), 'latency.entryMs'),
    cancel: drawOf(s.cancelMs, mulberry32(seed + 1), 'latency.cancelMs'),
    ack: drawOf(s.ackMs, mulberry32(seed + 2), 'latency.ackMs'),
    streamHoldMs: hold,
  };
}
