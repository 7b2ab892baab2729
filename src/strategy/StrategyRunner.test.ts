import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Bus } from '../bus/Bus.js';
import type { BusEvent, OrderUpdateEvent } from '../bus/events.js';
import type { Intent } from '../bus/intents.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { loadStrategies, plainErrorAt } from './loader.js';
import { StrategyRunner, acceptAll, type StrategySpec } from './StrategyRunner.js';
import echo, { seen } from './test-plugins/echo.js';
import thrower from './test-plugins/thrower.js';
import { defineStrategy, type StrategyLogger } from './types.js';

const D = (s: string | number): Decimal => new Decimal(s);
const here = path.dirname(fileURLToPath(import.meta.url));
const quiet: StrategyLogger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

function trade(symbol: string, price: string, E: number): BusEvent {
  return { type: 'trade', E, symbol, tradeId: String(E), price: D(price), qty: D('0.1'), tradeTime: E, isBuyerMaker: false };
}

function update(strategy: string, clientId: string, state: OrderUpdateEvent['state'], E: number, cum = '0'): OrderUpdateEvent {
  return { type: 'orderUpdate', E, strategy, clientId, orderId: `o-${clientId}`, symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', state, price: D('100'), quantity: D('0.001'), cumQty: D(cum), cumQuoteQty: D(cum).mul(100) };
}

function setup(specs: StrategySpec[], opts: { runTag?: string; onSink?: (i: Intent, bus: Bus) => void } = {}) {
  const bus = new Bus();
  const clock = new VirtualClock(1000);
  const intents: Intent[] = [];
  const failed: string[] = [];
  const runner = new StrategyRunner(specs, {
    bus,
    clock,
    books: () => undefined,
    gate: acceptAll,
    venue: {
      name: 'test',
      submit: (i) => {
        intents.push(i);
        opts.onSink?.(i, bus);
      },
    },
    log: quiet,
    onFailure: (strategy) => failed.push(strategy),
    ...(opts.runTag !== undefined ? { runTag: opts.runTag } : {}),
  });
  return { bus, clock, intents, failed, runner };
}

const spec = (name: string, symbols: string[], plugin: StrategySpec['plugin'] = echo, params: unknown = {}): StrategySpec => ({ name, plugin, params, symbols, budget: { IDR: D('1000'), BTC: D('1') } });

describe('StrategyRunner', () => {
  it('routes only the strategy’s symbols, its own order events and run-wide events', () => {
    const { bus, runner } = setup([spec('a', ['BTC_IDR']), spec('b', ['ETH_IDR'])]);
    runner.start();
    bus.publish(trade('BTCIDR', '100', 1));
    bus.publish(trade('ETH_IDR', '50', 2));
    bus.publish(update('b', 'b-1', 'NEW', 3));
    bus.publish({ type: 'executionReport' } as unknown as BusEvent);
    bus.publish({ type: 'timer', E: 4 });
    expect(seen.get('a')?.map((e) => e.type)).toEqual(['trade', 'timer']);
    expect(seen.get('b')?.map((e) => `${e.type}@${e.E}`)).toEqual(['trade@2', 'orderUpdate@3', 'timer@4']);
  });

  it('delivers only the market event types a plugin names (book status, own orders and timers always)', () => {
    const picky = { ...echo, marketEvents: ['depthDiff'] as const };
    const { bus, runner } = setup([spec('p', ['BTC_IDR'], picky), spec('all', ['BTC_IDR'])]);
    runner.start();
    const ticker = { type: 'bookTicker', E: 2, symbol: 'BTC_IDR', updateId: 1, bidPrice: D('1'), bidQty: D('1'), askPrice: D('2'), askQty: D('1') } as BusEvent;
    const diff = { type: 'depthDiff', E: 3, symbol: 'BTC_IDR', firstUpdateId: 1, finalUpdateId: 2, bids: [], asks: [] } as BusEvent;
    bus.publish(trade('BTC_IDR', '100', 1));
    bus.publish(ticker);
    bus.publish(diff);
    bus.publish({ type: 'bookStatus', E: 4, symbol: 'BTC_IDR', ready: true, reason: 'test' });
    bus.publish(update('p', 'p-1', 'NEW', 5));
    bus.publish({ type: 'timer', E: 6 });
    expect(seen.get('p')?.map((e) => e.type)).toEqual(['depthDiff', 'bookStatus', 'orderUpdate', 'timer']);
    expect(seen.get('all')?.map((e) => e.type)).toEqual(['trade', 'bookTicker', 'depthDiff', 'bookStatus', 'timer']);
  });

  it('hands no timer events to a plugin that says it reads none', () => {
    const deaf = { ...echo, timer: false };
    const { bus, runner } = setup([spec('deaf', ['BTC_IDR'], deaf), spec('hears', ['BTC_IDR'])]);
    runner.start();
    bus.publish(trade('BTC_IDR', '100', 1));
    bus.publish({ type: 'timer', E: 2 });
    expect(seen.get('deaf')?.map((e) => e.type)).toEqual(['trade']);
    expect(seen.get('hears')?.map((e) => e.type)).toEqual(['trade', 'timer']);
  });

  it('emits intents with deterministic clientIds, and the same events give the same intents', () => {
    const run = (): Intent[] => {
      const { bus, intents, runner } = setup([spec('mm', ['BTC_IDR'], echo, { qty: '0.002' })], { runTag: 'r7' });
      runner.start();
      for (let i = 1; i <= 3; i++) bus.publish(trade('BTC_IDR', String(100 + i), i));
      bus.publish({ type: 'timer', E: 9 });
      return intents;
    };
    const a = run();
    expect(a.map((i) => (i.kind === 'place' ? `${i.clientId} ${i.price?.toFixed()} ${i.quantity?.toFixed()}` : `${i.kind} ${i.intentId}`))).toEqual(['mm-r7-1 101 0.002', 'mm-r7-2 102 0.002', 'mm-r7-3 103 0.002', 'cancelAll mm-r7:4']);
    expect(run()).toEqual(a);
    for (const i of a) if (i.kind === 'place') expect(i.clientId.length).toBeLessThanOrEqual(50);
  });

  it('keeps each strategy’s own orders, positions and budget from its events', () => {
    const { bus, runner } = setup([spec('a', ['BTC_IDR'])]);
    runner.start();
    bus.publish(trade('BTC_IDR', '100', 1));
    bus.publish(trade('BTC_IDR', '200', 2));
    const book = runner.book('a');
    expect(book.openOrders().map((o) => `${o.clientId}:${o.state}`)).toEqual(['a-1:PENDING', 'a-2:PENDING']);
    expect(book.balance('IDR')).toEqual({ free: D('999.7'), locked: D('0.3') });
    bus.publish({ type: 'intentRejected', E: 3, strategy: 'a', intent: { kind: 'place', strategy: 'a', intentId: 'a:2', clientId: 'a-2', symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT' }, reason: 'NOTIONAL', message: 'x' });
    bus.publish(update('a', 'a-1', 'PARTIALLY_FILLED', 4, '0.0004'));
    bus.publish({ type: 'fill', E: 4, strategy: 'a', clientId: 'a-1', orderId: 'o-a-1', symbol: 'BTC_IDR', side: 'BUY', tradeId: '1', price: D('100'), qty: D('0.0004'), quoteQty: D('0.04'), commission: D('0.0000004'), commissionAsset: 'BTC', isMaker: true });
    expect(book.openOrders().map((o) => `${o.clientId}:${o.state}:${o.cumQty.toFixed()}`)).toEqual(['a-1:PARTIALLY_FILLED:0.0004']);
    // Net of the commission taken from the BTC received (the account holds 0.0003996).
    expect(book.position('BTC')).toEqual(D('0.0003996'));
    expect(book.cash('BTC')).toEqual(D('1.0003996'));
    expect(book.balance('IDR')).toEqual({ free: D('999.9'), locked: D('0.06') });
    expect(book.openQty('BTC_IDR', 'BUY')).toEqual(D('0.0006'));
    bus.publish(update('a', 'a-1', 'FILLED', 5, '0.001'));
    expect(book.openCount()).toBe(0);
    expect(book.placementsSince(999)).toBe(2);
    expect(book.placementsSince(1000)).toBe(0);
  });

  it('stops and reports a failing plugin, cancels its orders, and the others keep running', () => {
    const { bus, intents, failed, runner } = setup([spec('bad', ['BTC_IDR'], thrower, { failAt: 2 }), spec('good', ['BTC_IDR'])]);
    runner.start();
    bus.publish(trade('BTC_IDR', '100', 1));
    bus.publish(trade('BTC_IDR', '101', 2));
    bus.publish(trade('BTC_IDR', '102', 3));
    expect(runner.failed).toEqual(['bad']);
    expect(failed).toEqual(['bad']);
    expect(runner.failures.map((f) => [f.strategy, f.phase, f.error])).toEqual([['bad', 'event', 'boom']]);
    expect(intents.map((i) => `${i.strategy}:${i.kind}:${i.kind === 'place' ? i.clientId : ''}`)).toEqual(['bad:place:bad-1', 'good:place:good-1', 'bad:cancelAll:', 'good:place:good-2', 'good:place:good-3']);
  });

  it('params that do not validate stop the start before any plugin is created, naming the path and value', () => {
    seen.delete('good');
    const { bus, intents, runner } = setup([spec('bad', ['BTC_IDR'], thrower, { failAt: 'x' }), spec('good', ['BTC_IDR'])]);
    expect(() => runner.start()).toThrow(/strategy bad: params\.failAt="x"/);
    bus.publish(trade('BTC_IDR', '100', 1));
    expect(seen.has('good')).toBe(false);
    expect(intents).toEqual([]);
  });

  /** Starts `specs` with plots recorded into `plotted` and hands them one trade. */
  function plotRun(specs: ConstructorParameters<typeof StrategyRunner>[0], plotted: unknown[][]): StrategyRunner {
    const bus = new Bus();
    const runner = new StrategyRunner(specs, {
      bus,
      clock: new VirtualClock(0),
      books: () => undefined,
      gate: acceptAll,
      venue: { name: 'test', submit: () => undefined },
      log: quiet,
      plot: (...args) => void plotted.push(args),
    });
    runner.start();
    bus.publish(trade('BTC_IDR', '100', 1));
    return runner;
  }

  it('hands plots on with their pane, and stops a strategy that names an empty pane, naming the value', () => {
    const plotted: unknown[][] = [];
    const plotter = defineStrategy({
      name: 'p',
      description: 'plots',
      params: z.object({ pane: z.string().optional() }),
      create: (ctx) => ({ onEvent: () => ctx.plot('rsi', 55, ctx.params.pane === undefined ? undefined : { pane: ctx.params.pane }) }),
    });
    const runner = plotRun([spec('over', ['BTC_IDR'], plotter), spec('below', ['BTC_IDR'], plotter, { pane: 'RSI' }), spec('bad', ['BTC_IDR'], plotter, { pane: ' ' })], plotted);
    expect(plotted).toEqual([
      ['over', 'BTC_IDR', 'rsi', 55, undefined],
      ['below', 'BTC_IDR', 'rsi', 55, 'RSI'],
    ]);
    expect(runner.failures.map((f) => f.error)).toEqual(['ctx.plot: options.pane=" ": expected a non-empty name (or no pane: drawn over the price)']);
  });

  it('stops a strategy that plots what is not a number (a Decimal), naming the value; NaN and infinities are handed on as gaps', () => {
    const plotted: unknown[][] = [];
    const plotter = defineStrategy({
      name: 'p',
      description: 'plots',
      params: z.object({ what: z.enum(['decimal', 'nan', 'inf']) }),
      create: (ctx) => ({ onEvent: () => ctx.plot('px', ({ decimal: new Decimal('100.5'), nan: NaN, inf: -Infinity } as Record<string, unknown>)[ctx.params.what] as number) }),
    });
    const runner = plotRun([spec('dec', ['BTC_IDR'], plotter, { what: 'decimal' }), spec('nan', ['BTC_IDR'], plotter, { what: 'nan' }), spec('inf', ['BTC_IDR'], plotter, { what: 'inf' })], plotted);
    expect(plotted).toEqual([
      ['nan', 'BTC_IDR', 'px', NaN, undefined],
      ['inf', 'BTC_IDR', 'px', -Infinity, undefined],
    ]);
    expect(runner.failures.map((f) => f.error)).toEqual(['ctx.plot: value="100.5" (an object): expected a number (a Decimal: .toNumber(); NaN or an infinity leaves a gap in the series)']);
  });

  it('a plugin that throws in onStart is stopped without stopping the others', () => {
    const failsAtStart = defineStrategy({ name: 'x', description: 'throws in onStart', params: z.object({}), create: () => ({ onStart: () => { throw new Error('no'); }, onEvent: () => undefined }) });
    const { bus, runner } = setup([spec('bad', ['BTC_IDR'], failsAtStart), spec('good', ['BTC_IDR'])]);
    runner.start();
    bus.publish(trade('BTC_IDR', '100', 1));
    expect(runner.failures).toEqual([{ strategy: 'bad', phase: 'start', error: 'no', t: 1000 }]);
    expect(seen.get('good')?.length).toBe(1);
  });

  it('a run tag makes clientIds and intentIds differ between runs of the same strategy names', () => {
    const ids = (runTag: string): string[] => {
      const { bus, intents, runner } = setup([spec('mm', ['BTC_IDR'])], { runTag });
      runner.start();
      bus.publish(trade('BTC_IDR', '100', 1));
      return intents.flatMap((i) => (i.kind === 'place' ? [i.clientId, i.intentId] : []));
    };
    expect(ids('a1')).toEqual(['mm-a1-1', 'mm-a1:1']);
    expect(ids('a2')).toEqual(['mm-a2-1', 'mm-a2:1']);
    expect(ids('')).toEqual(['mm-1', 'mm:1']);
  });

  it('delivers events caused by its own intents after the handler returns, in order', () => {
    const { bus, runner } = setup([spec('a', ['BTC_IDR'])], {
      onSink: (i, b) => {
        if (i.kind === 'place') b.publish(update('a', i.clientId, 'NEW', 10));
      },
    });
    runner.start();
    bus.publish(trade('BTC_IDR', '100', 1));
    bus.publish(trade('BTC_IDR', '100', 2));
    expect(seen.get('a')?.map((e) => `${e.type}@${e.E}`)).toEqual(['trade@1', 'orderUpdate@10', 'trade@2', 'orderUpdate@10']);
  });
});

describe('loadStrategies', () => {
  const errorAt = plainErrorAt('/cfg/run.yaml');

  it('loads plugins by path and validates their params', async () => {
    const specs = await loadStrategies([{ name: 'e', plugin: './test-plugins/echo.ts', symbols: ['BTC_IDR'], budget: { IDR: '5' }, params: { qty: '0.01' } }], here, errorAt);
    expect(specs[0]?.plugin.name).toBe('echo');
    expect(specs[0]?.params).toEqual({ qty: '0.01', spread: 0 });
    expect(specs[0]?.budget).toEqual({ IDR: D('5') });
  });

  it('names strategies[i].params.<path> and the value of a bad parameter', async () => {
    const err = await loadStrategies([{ name: 'e', plugin: './test-plugins/echo.ts', symbols: ['BTC_IDR'], params: { qty: '0.01', spread: -1 } }], here, errorAt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/^\/cfg\/run\.yaml: strategies\[0\]\.params\.spread=-1: .*plugin echo/);
    const unknown = await loadStrategies([{ name: 'e', plugin: './test-plugins/echo.ts', symbols: ['BTC_IDR'], params: { sprd: 1 } }], here, errorAt).catch((e: unknown) => e);
    expect((unknown as ConfigError).path).toBe('strategies[0].params.sprd');
  });

  it('refuses a module without a plugin export, or no module at all', async () => {
    await expect(loadStrategies([{ name: 'n', plugin: './test-plugins/not-a-plugin.ts', symbols: ['BTC_IDR'] }], here, errorAt)).rejects.toThrow(/strategies\[0\]\.plugin=.*no default export made with defineStrategy/);
    await expect(loadStrategies([{ name: 'n', plugin: 'no-such-plugin-xyz', symbols: ['BTC_IDR'] }], here, errorAt)).rejects.toThrow(/no plugin module/);
  });
});

describe('StrategyRunner symbol spellings', () => {
  it('places and reads books under the configured spelling whatever spelling the plugin uses', () => {
    const spellings = ['BTC_IDR', 'BTCIDR', 'btcidr', 'btc_idr'];
    const asked: string[] = [];
    const errors: string[] = [];
    const plugin = defineStrategy({
      name: 'speller',
      description: 'places and reads books under several spellings of its symbol',
      params: z.object({}),
      create: (ctx) => ({
        onEvent: (e) => {
          if (e.type !== 'timer') return;
          for (const s of spellings) {
            ctx.book(s);
            ctx.place({ symbol: s, side: 'BUY', orderType: 'LIMIT', price: D('1'), quantity: D('1') });
          }
          for (const s of ['ETH_IDR', 'BTC_USDT']) {
            try {
              ctx.place({ symbol: s, side: 'BUY', orderType: 'LIMIT', price: D('1'), quantity: D('1') });
            } catch (err) {
              errors.push((err as Error).message);
            }
            expect(ctx.book(s)).toBeUndefined();
          }
        },
      }),
    });
    const bus = new Bus();
    const intents: Intent[] = [];
    const runner = new StrategyRunner([{ name: 'sp', plugin, params: {}, symbols: ['BTC_IDR'], budget: {} }], {
      bus,
      clock: new VirtualClock(0),
      books: (s) => {
        asked.push(s);
        return undefined;
      },
      gate: acceptAll,
      venue: { name: 'test', submit: (i) => intents.push(i) },
      log: quiet,
    });
    runner.start();
    bus.publish({ type: 'timer', E: 1 });
    expect(intents.map((i) => (i.kind === 'place' ? i.symbol : i.kind))).toEqual(['BTC_IDR', 'BTC_IDR', 'BTC_IDR', 'BTC_IDR']);
    expect(asked).toEqual(['BTC_IDR', 'BTC_IDR', 'BTC_IDR', 'BTC_IDR']);
    expect(errors).toEqual(['strategy sp does not trade ETH_IDR', 'strategy sp does not trade BTC_USDT']);
  });
});

describe('StrategyRunner place intents', () => {
  it('builds { kind, strategy, intentId, clientId, ...request without clientId, symbol }: keys, order and values', () => {
    const reqs = [
      { symbol: 'btcidr', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', quantity: D('1'), price: D('2') },
      // A chosen clientId, and one given as undefined (a generated one then), anywhere in the request.
      { side: 'SELL', clientId: 'mine-1', orderType: 'LIMIT', price: D('3'), symbol: 'BTC_IDR', quantity: D('1') },
      { clientId: undefined, symbol: 'BTC_IDR', side: 'BUY', orderType: 'MARKET', quoteOrderQty: D('5') },
    ] as const;
    const plugin = defineStrategy({
      name: 'placer',
      description: 'places the requests of the test on a timer',
      params: z.object({}),
      create: (ctx) => ({
        onEvent: (e) => {
          if (e.type === 'timer') for (const r of reqs) ctx.place(r);
        },
      }),
    });
    const bus = new Bus();
    const intents: Intent[] = [];
    const runner = new StrategyRunner([{ name: 'p', plugin, params: {}, symbols: ['BTC_IDR'], budget: {} }], { bus, clock: new VirtualClock(0), books: () => undefined, gate: acceptAll, venue: { name: 'test', submit: (i) => intents.push(i) }, log: quiet });
    runner.start();
    bus.publish({ type: 'timer', E: 1 });
    // The reference construction: an object rest without clientId, spread after the context's fields.
    const want = reqs.map((req, n) => {
      const { clientId: chosen, ...rest } = req as { clientId?: string };
      return { kind: 'place', strategy: 'p', intentId: `p:${n + 1}`, clientId: chosen ?? `p-${n === 2 ? 2 : 1}`, ...rest, symbol: 'BTC_IDR' };
    });
    expect(intents.map((i) => Object.keys(i))).toEqual(want.map((w) => Object.keys(w)));
    expect(intents).toEqual(want);
  });

  it('a failure it cannot record (the journal on a full disk) ends neither stop() nor the other strategies’ onStop', () => {
    const stopped: string[] = [];
    const plugin = (name: string, fails: boolean): StrategySpec['plugin'] =>
      defineStrategy({
        name,
        description: 'test',
        params: z.object({}),
        create: () => ({
          onEvent: () => undefined,
          onStop: () => {
            stopped.push(name);
            if (fails) throw new Error('onStop failed');
          },
        }),
      });
    const runner = new StrategyRunner([spec('a', ['BTC_IDR'], plugin('a', true)), spec('b', ['BTC_IDR'], plugin('b', false))], {
      bus: new Bus(),
      clock: new VirtualClock(1000),
      books: () => undefined,
      gate: acceptAll,
      venue: { name: 'test', submit: () => undefined },
      log: quiet,
      onFailure: () => {
        throw new Error('database or disk is full');
      },
    });
    runner.start();
    // Before: the journal's error was thrown out of stop(), and b was never stopped.
    expect(() => runner.stop()).not.toThrow();
    expect(stopped).toEqual(['a', 'b']);
    expect(runner.failures.map((f) => [f.strategy, f.phase, f.error])).toEqual([['a', 'stop', 'onStop failed']]);
  });
});
