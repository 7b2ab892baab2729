/** A ConsoleRun for the console's unit tests: a Subject as the bus, state the test sets, commands recorded. */
import { Subject } from 'rxjs';
import type { BusEvent, TradingStateName } from '../bus/events.js';
import type { Decimal } from '../core/decimal.js';
import type { BookTopView, ConsoleRun, DailyLossView, PositionView, StrategyView, WeightView } from './source.js';
import type { FillRecord, OrderRecord } from '../store/records.js';
import type { ConsoleLogger } from './server.js';

/** The fake run and what the test can change or inspect. */
export interface TestRun extends ConsoleRun {
  readonly bus: Subject<BusEvent>;
  readonly commands: unknown[];
  readonly journalled: { kind: string; data: unknown }[];
  state: { state: TradingStateName; reason: string };
  strategyList: StrategyView[];
  positionList: PositionView[];
  orders: OrderRecord[];
  /** The run's fills in the ledger, oldest first. */
  fillList: FillRecord[];
  weightList: WeightView[];
  balanceList: { asset: string; free: Decimal; locked: Decimal }[];
  bookList: BookTopView[];
  dailyLossList: DailyLossView[];
  clockOffset: number | undefined;
  equityValue: ReturnType<NonNullable<ConsoleRun['equity']>>;
  /** The stop reason once the test says the run is stopping. */
  stopReason: string | undefined;
}

/** A fake run with one strategy `mm` on BTC_USDT. */
export function testRun(): TestRun {
  const bus = new Subject<BusEvent>();
  const run: TestRun = {
    name: 'test',
    mode: 'paper',
    startedAt: 0,
    bus,
    events$: bus.asObservable(),
    commands: [],
    journalled: [],
    state: { state: 'ACTIVE', reason: 'active' },
    strategyList: [{ name: 'mm', symbols: ['BTC_USDT'], state: 'ACTIVE', reason: 'active' }],
    positionList: [],
    orders: [],
    fillList: [],
    weightList: [],
    balanceList: [],
    bookList: [],
    dailyLossList: [],
    clockOffset: undefined,
    equityValue: undefined,
    stopReason: undefined,
    strategies: () => run.strategyList,
    tradingState: () => run.state,
    positions: () => run.positionList,
    balances: () => run.balanceList,
    openOrders: () => run.orders,
    recentFills: (limit) => run.fillList.slice(-limit),
    bookTops: () => run.bookList,
    intentStats: () => ({ intents: 3, accepted: 2, adjusted: 0, rejected: 1 }),
    weights: () => run.weightList,
    clockOffsetMs: () => run.clockOffset,
    dailyLoss: () => run.dailyLossList,
    equity: () => run.equityValue,
    journal: (kind, data) => void run.journalled.push({ kind, data }),
    setState: (scope, state, reason) => void run.commands.push({ scope, state, reason }),
    cancelAll: (scope) => (run.commands.push({ cancelAll: scope }), 0),
    stop: (reason) => void run.commands.push({ stop: reason }),
    stopping: () => run.stopReason,
  };
  return run;
}

/** A logger for the console's unit tests: each line as its fields in JSON followed by the message. */
export function recordingLog(lines: string[]): ConsoleLogger {
  const push = (o: object, m: string): void => void lines.push(JSON.stringify(o) + m);
  return { info: push, warn: push, error: push };
}
