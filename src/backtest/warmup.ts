/**
 * `backtest.warmup`: a span of history before `start` handed to the strategies' handlers without
 * trading, so their indicators are stable when the period that counts begins (src/backtest/README.md,
 * "Warm-up"). This file holds the span's length and the gate that refuses every order in it; the
 * replay decides which items fall in it (Replay.ts).
 */
import { ConfigError } from '../core/errors.js';
import { KlineInterval, type KlineIntervalName } from '../core/enums.js';
import { durationTextMs } from '../config/duration.js';
import { timeBoundMs, timeText } from '../config/timeBound.js';
import { klineSubscriptions } from '../strategy/klines.js';
import type { IntentGate, StrategySpec } from '../strategy/StrategyRunner.js';
import type { BacktestConfig } from './config.js';
import { spanText } from './metrics.js';

/** Reason code of an intent refused during the warm-up. */
export const WARM_UP_REASON = 'WARM_UP';

/**
 * Milliseconds of the configured warm-up (undefined: none). A duration is read as written; a
 * number of bars is that many of the shortest kline interval of the run (the candle files', or in
 * tick mode the bars the strategies read), and a ConfigError naming backtest.warmup when there are none.
 */
export function warmUpMs(cfg: BacktestConfig, strategies: readonly StrategySpec[]): number | undefined {
  const w = cfg.backtest.warmup;
  if (w === undefined) return undefined;
  if (typeof w === 'string') {
    const ms = durationTextMs(w);
    // The schema checked the spelling: a miss here is a config that skipped it.
    if (ms === undefined) throw new ConfigError(cfg.file, 'backtest.warmup', w, 'expected a duration such as 90m, 2h or 1d, or a whole number of bars');
    return ms;
  }
  const bar = shortestBarMs(cfg, strategies);
  if (bar === undefined) throw new ConfigError(cfg.file, 'backtest.warmup', w, 'a number of bars needs bars: the run has no candle files and no strategy reads klines; give a duration such as 2h');
  return w * bar;
}

/** The run's shortest kline interval in ms: the candle files', or in tick mode the bars the strategies read (undefined: none). */
function shortestBarMs(cfg: BacktestConfig, strategies: readonly StrategySpec[]): number | undefined {
  const intervals: KlineIntervalName[] = cfg.backtest.candles.length > 0 ? cfg.backtest.candles.map((c) => c.interval) : klineSubscriptions(strategies).map((k) => k.interval);
  return intervals.length === 0 ? undefined : Math.min(...intervals.map((i) => KlineInterval[i]));
}

/**
 * A sentence when the data begins inside the warm-up before backtest.start (a start closer to the
 * data's beginning than the warm-up): the strategies heard less history than asked and may start
 * cold, which nothing else would say. A bar counts from its open (its event is its close), so bars
 * aligned to the warm-up's start cover it; in tick mode a shortfall under one bar is not told.
 */
export function shortWarmUpWarnings(cfg: BacktestConfig, strategies: readonly StrategySpec[], ms: number | undefined, firstTime: number | undefined): string[] {
  const { start, warmup } = cfg.backtest;
  if (ms === undefined || start === undefined || firstTime === undefined) return [];
  const startMs = timeBoundMs(start);
  const from = startMs - ms;
  const dataFrom = firstTime - (shortestBarMs(cfg, strategies) ?? 1) + 1;
  if (dataFrom <= from) return [];
  const heard = startMs - dataFrom;
  return [
    `backtest.warmup=${JSON.stringify(warmup)}: the warm-up begins at ${timeText(from)} but the data only at ${timeText(dataFrom)}, ${spanText(dataFrom - from)} later: ` +
      `the strategies heard ${heard > 0 ? spanText(heard) : 'none'} of history before backtest.start (${timeText(startMs)}), not the whole warm-up, and may start cold`,
  ];
}

/**
 * The warm-up of one run: whether it is on (the replay says when it starts and ends), the gate that
 * refuses intents meanwhile, and what the result says about them. Without a warm-up (`ms`
 * undefined) it is never on and changes nothing.
 */
export class WarmUp {
  /** True from the warm-up's first item until the run goes live. */
  on = false;
  /** Intents refused during the warm-up, by strategy. */
  readonly #refused = new Map<string, number>();

  constructor(readonly ms: number | undefined) {}

  /** The replay's warm-up options: its length, and at its first item `start` (the strategies) with the gate closed. */
  replayOptions(start: () => void): { warmupMs?: number; onWarm?: () => void } {
    if (this.ms === undefined) return {};
    return {
      warmupMs: this.ms,
      onWarm: () => {
        this.on = true;
        start();
      },
    };
  }

  /**
   * `gate` with every intent refused while on (reason {@link WARM_UP_REASON}): the strategy hears
   * an intentRejected as it would a risk refusal and nothing reaches the venue, so the warm-up has
   * no orders, no fills and no PnL. Without a warm-up, `gate` itself.
   */
  gate(gate: IntentGate): IntentGate {
    if (this.ms === undefined) return gate;
    return (intent, strategy) => {
      if (!this.on) return gate(intent, strategy);
      this.#refused.set(strategy.name, (this.#refused.get(strategy.name) ?? 0) + 1);
      return { kind: 'reject', reason: WARM_UP_REASON, message: 'backtest.warmup: no orders before backtest.start (the strategy is warming up)' };
    };
  }

  /** `f` made deaf while on (the result's recorders: nothing of the warm-up is in the result); without a warm-up, `f` itself. */
  unheard<A extends unknown[]>(f: (...args: A) => void): (...args: A) => void {
    if (this.ms === undefined) return f;
    return (...args) => {
      if (!this.on) f(...args);
    };
  }

  /** One sentence per strategy whose intents the warm-up refused (none: nothing to say). */
  warnings(): string[] {
    return [...this.#refused].map(([name, n]) => `strategy ${name} sent ${n} intent${n === 1 ? '' : 's'} during the warm-up before backtest.start, refused (${WARM_UP_REASON}): the warm-up only feeds the strategy, nothing trades before start`);
  }
}
