/**
 * Market stream names of the spec, parsed. The symbol part is the stream spelling
 * (lower case; underscore removed for type 1), so the server maps it back per host.
 */
import { isKlineInterval, type KlineIntervalName } from '../core/index.js';

/** A parsed market stream name. */
export type StreamName =
  | { readonly kind: 'aggTrade'; readonly symbol: string }
  | { readonly kind: 'trade'; readonly symbol: string }
  | { readonly kind: 'kline'; readonly symbol: string; readonly interval: KlineIntervalName }
  | { readonly kind: 'miniTicker'; readonly symbol: string }
  | { readonly kind: 'allMiniTickers' }
  | { readonly kind: 'partialDepth'; readonly symbol: string; readonly levels: 5 | 10 | 20; readonly fast: boolean }
  | { readonly kind: 'diffDepth'; readonly symbol: string; readonly fast: boolean }
  | { readonly kind: 'referencePrice'; readonly symbol: string };

const SYM = '([a-z0-9_]{1,50})';
const PATTERNS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => StreamName | undefined]> = [
  [new RegExp(`^${SYM}@aggTrade$`), (m) => ({ kind: 'aggTrade', symbol: m[1] as string })],
  [new RegExp(`^${SYM}@trade$`), (m) => ({ kind: 'trade', symbol: m[1] as string })],
  [
    new RegExp(`^${SYM}@kline_([0-9]{1,2}[mhdwM])$`),
    (m) => {
      const interval = m[2] as string;
      return isKlineInterval(interval) ? { kind: 'kline', symbol: m[1] as string, interval } : undefined;
    },
  ],
  [new RegExp(`^${SYM}@miniTicker$`), (m) => ({ kind: 'miniTicker', symbol: m[1] as string })],
  [/^!miniTicker@arr$/, () => ({ kind: 'allMiniTickers' })],
  [new RegExp(`^${SYM}@depth(5|10|20)(@100ms|@1000ms)?$`), (m) => ({ kind: 'partialDepth', symbol: m[1] as string, levels: Number(m[2]) as 5 | 10 | 20, fast: m[3] === '@100ms' })],
  [new RegExp(`^${SYM}@depth(@100ms|@1000ms)?$`), (m) => ({ kind: 'diffDepth', symbol: m[1] as string, fast: m[2] === '@100ms' })],
  [new RegExp(`^${SYM}@referencePrice$`), (m) => ({ kind: 'referencePrice', symbol: m[1] as string })],
];

/** Parses a stream name, or undefined when it is not one of the spec's forms. */
export function parseStreamName(name: string): StreamName | undefined {
  for (const [re, build] of PATTERNS) {
    const m = re.exec(name);
    if (m) return build(m);
  }
  return undefined;
}
