/**
 * The configuration, the strategy loader and runner, and the risk checker composed as a run
 * composes them: YAML -> validated config -> plugins with checked params -> runner on a bus ->
 * every intent through checkIntent -> rejections published back as intentRejected events, which
 * reach the strategy that sent them. No network: the venue is a stub that acknowledges orders.
 */
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Bus } from '../../src/bus/Bus.js';
import type { BusEvent } from '../../src/bus/events.js';
import type { Intent } from '../../src/bus/intents.js';
import { VirtualClock } from '../../src/core/clock.js';
import { Decimal, ZERO } from '../../src/core/decimal.js';
import { loadConfig } from '../../src/config/loadConfig.js';
import { checkIntent } from '../../src/risk/checkIntent.js';
import { compileRiskRules } from '../../src/risk/rules.js';
import { makeSymbol } from '../../src/risk/testkit.js';
import { TradingStateMachine } from '../../src/risk/tradingState.js';
import type { RiskContext, UserLimits } from '../../src/risk/types.js';
import { loadStrategies } from '../../src/strategy/loader.js';
import { StrategyRunner, silentLogger } from '../../src/strategy/StrategyRunner.js';
import type { IntentDecision } from '../../src/bus/decision.js';
import { seen } from '../../src/strategy/test-plugins/echo.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-cfg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const YAML = `mode: paper
sandbox: { config: sandbox.yaml }
symbols:
  BTC_IDR:
    filters:
      - { filterType: PRICE_FILTER, minPrice: "1", maxPrice: "10000000000", tickSize: "1" }
      - { filterType: LOT_SIZE, minQty: "0.00001", maxQty: "100", stepSize: "0.00001" }
      - { filterType: NOTIONAL, minNotional: "20000", maxNotional: "0", applyToMarket: false, avgPriceMins: 0 }
strategies:
  - name: echo
    plugin: ${path.join(root, 'src/strategy/test-plugins/echo.ts')}
    symbols: [BTC_IDR]
    budget: { IDR: "3000000" }
    params: { qty: "0.001", spread: 0.5 }
    risk: { mode: adjust }
risk:
  maxOpenOrders: 2
`;

describe('config -> strategies -> risk -> events', () => {
  it('a strategy sees its rejected intents as events with the reason code', async () => {
    const file = path.join(dir, 'run.yaml');
    writeFileSync(file, YAML);
    const { config, source } = loadConfig(file);
    const specs = await loadStrategies(config.strategies, config.dir, source.errorAt());

    const bus = new Bus();
    const clock = new VirtualClock(1_000);
    const states = new TradingStateMachine({ onChange: (e) => bus.publish(e) });
    const rules = compileRiskRules(Object.entries(config.symbols).map(([s, v]) => makeSymbol(s, v.filters)));
    const limits: UserLimits = { ...(config.risk.maxOpenOrders !== undefined ? { maxOpenOrders: config.risk.maxOpenOrders } : {}) };
    const sent: Intent[] = [];
    // The gate needs the runner's books and the runner needs the gate: tie the knot through a holder.
    const holder: { runner?: StrategyRunner } = {};
    const gate = (intent: Intent): IntentDecision => {
      const entry = config.strategies.find((s) => s.name === intent.strategy);
      const book = holder.runner?.book(intent.strategy);
      if (!entry || !book) throw new Error('unknown strategy');
      const ctx: RiskContext = {
        now: clock.now(),
        stateFor: (s) => states.stateFor(s),
        mode: entry.risk?.mode ?? config.risk.mode,
        rules,
        limits,
        market: { avgPrice: () => undefined, referencePrice: () => undefined, book: () => undefined },
        account: {
          free: (a) => book.free(a),
          position: (a) => book.position(a),
          openQty: (s, side) => book.openQty(s, side),
          symbolOpenOrders: () => ({ total: book.openCount(), algo: 0, iceberg: 0 }),
          exchangeOpenOrders: () => ({ total: book.openCount(), algo: 0 }),
          // The runner books a place intent as PENDING only after the gate accepted it.
          strategyOpenOrders: () => book.openCount(),
          placementsSince: (t) => book.placementsSince(t),
          dailyPnl: () => ZERO,
        },
      };
      return checkIntent(intent, ctx);
    };
    // Accepted (or adjusted) intents reach the venue; the runner publishes rejections as events.
    const submit = (final: Intent): void => {
      sent.push(final);
      if (final.kind === 'place') bus.publish({ type: 'orderUpdate', E: clock.now(), strategy: final.strategy, clientId: final.clientId, orderId: `x${sent.length}`, symbol: final.symbol, side: final.side, orderType: final.orderType, state: 'NEW', price: final.price, quantity: final.quantity, cumQty: ZERO, cumQuoteQty: ZERO });
    };
    const runner = new StrategyRunner(specs, { bus, clock, books: () => undefined, gate, venue: { name: 'stub', submit }, log: silentLogger });
    holder.runner = runner;
    runner.start();
    // As a run does: rejections queued while a handler ran are published after each bus event.
    bus.events$.subscribe(() => runner.flush());

    const trade = (price: string, E: number): BusEvent => ({ type: 'trade', E, symbol: 'BTC_IDR', tradeId: String(E), price: new Decimal(price), qty: new Decimal('0.1'), tradeTime: E, isBuyerMaker: false });
    bus.publish(trade('1000000000', 1)); // 0.001 at 999,999,999.5 -> adjusted down to the tick
    bus.publish(trade('1000000000', 2)); // second order: fine
    bus.publish(trade('1000000000', 3)); // third: maxOpenOrders 2
    bus.publish(trade('10000', 4)); // notional 10 IDR: NOTIONAL

    expect(sent.map((i) => (i.kind === 'place' ? `${i.clientId}@${i.price?.toFixed()}` : i.kind))).toEqual(['echo-1@999999999', 'echo-2@999999999']);
    const rejections = (seen.get('echo') ?? []).filter((e) => e.type === 'intentRejected');
    expect(rejections.map((e) => (e.type === 'intentRejected' ? `${e.reason} ${e.intent.kind === 'place' ? e.intent.clientId : ''}` : ''))).toEqual(['MAX_OPEN_ORDERS echo-3', 'NOTIONAL echo-4']);
    expect(runner.book('echo').openOrders().map((o) => `${o.clientId}:${o.state}`)).toEqual(['echo-1:NEW', 'echo-2:NEW']);
    runner.stop();
    bus.close();
  });
});
