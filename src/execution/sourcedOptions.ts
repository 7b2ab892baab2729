import type { SymbolInfo } from '../core/types.js';
import type { ExecLogger } from './log.js';

/** What a run's market-metadata keeper (average prices, reference prices) is built from. */
export interface SourcedOptions<Source> {
  /** The run's symbols. */
  readonly symbols: readonly SymbolInfo[];
  /** The REST calls it makes (the open API client satisfies it). */
  readonly source: Source;
  /** The run's clock (ms). */
  readonly now: () => number;
  /** Where problems are reported. */
  readonly log: ExecLogger;
}
