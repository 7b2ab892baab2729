import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Bus } from '../bus/Bus.js';
import type { BusEvent } from '../bus/events.js';
import type { Intent } from '../bus/intents.js';
import { VirtualClock } from '../core/clock.js';
import { Decimal, ZERO } from '../core/decimal.js';
import type { TradeEvent } from '../core/marketEvents.js';
import { StrategyRunner, acceptAll, silentLogger, type IntentGate } from './StrategyRunner.js';
import { defineStrategy } from './types.js';

const trade = (symbol: string, E = 1): TradeEvent => ({ type: 'trade', E, symbol, tradeId: '1', price: new Decimal(100), qty: new Decimal(1), tradeTime: E, isBuyerMaker: false });

function harness(gate: IntentGate = acceptAll) {
  const bus = new Bus();
  const clock = new VirtualClock(1000);
  const sent: Intent[] = [];
  const seen: Record<string, string[]> = { a: [], b: [], bad: [] };
  const recorder = (name: string, opts: { throwOn?: string; placeOn?: boolean } = {}) =>
    defineStrategy({
      name,
      description: 'test',
      params: z.object({ n: z.number().default(1) }),
      create: (ctx) => ({
        onEvent(e: BusEvent) {
          seen[name]?.push(`${e.type}${'symbol' in e ? `:${e.symbol}` : ''}`);
          if (opts.throwOn === e.type) throw new Error('boom');
          if (opts.placeOn && e.type === 'trade') {
            ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', quantity: new Decimal(1), price: new Decimal(10) });
            seen[name]?.push(`open=${ctx.openOrders().length} free=${ctx.balance('USDT').free} locked=${ctx.balance('USDT').locked} pos=${ctx.position('BTC')} btc=${ctx.balance('BTC').free}`);
          }
        },
      }),
    });
  const host = new StrategyRunner(
    [
      { name: 'a', plugin: recorder('a', { placeOn: true }), params: {}, symbols: ['BTC_USDT'], budget: { USDT: new Decimal(100) } },
      { name: 'b', plugin: recorder('b'), params: { n: 2 }, symbols: ['ETH_USDT'], budget: {} },
      { name: 'bad', plugin: recorder('bad', { throwOn: 'timer' }), params: {}, symbols: ['BTC_USDT'], budget: {} },
    ],
    { bus, clock, venue: { name: 'v', submit: (i) => sent.push(i) }, books: () => undefined, gate, log: silentLogger },
  );
  return { bus, clock, sent, seen, host };
}

describe('StrategyRunner with a gate and a venue', () => {
  it('routes market events by symbol and own order events by strategy only', () => {
    const { bus, seen, host, sent } = harness();
    host.start();
    bus.publish(trade('ETH_USDT'));
    bus.publish(trade('BTC_USDT'));
    expect(seen.b).toEqual(['trade:ETH_USDT']);
    expect(seen.a).toEqual(['trade:BTC_USDT', 'open=1 free=90 locked=10 pos=0 btc=0']);
    expect(sent).toHaveLength(1);
    const p = sent[0]!;
    expect(p.kind === 'place' && [p.strategy, p.clientId, p.intentId]).toEqual(['a', 'a-1', 'a:1']);
    bus.publish({ type: 'orderUpdate', E: 2, strategy: 'a', clientId: 'a-2', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', state: 'FILLED', price: new Decimal(10), quantity: new Decimal(1), cumQty: new Decimal(1), cumQuoteQty: new Decimal(10) });
    expect(seen.b).toEqual(['trade:ETH_USDT']);
    expect(seen.bad).toEqual(['trade:BTC_USDT']);
  });

  it('tracks positions and budget from fills', () => {
    const { bus, host, seen } = harness();
    host.start();
    bus.publish({ type: 'fill', E: 2, strategy: 'a', clientId: 'x', orderId: '1', symbol: 'BTC_USDT', side: 'BUY', tradeId: '1', price: new Decimal(10), qty: new Decimal(2), quoteQty: new Decimal(20), commission: new Decimal('0.002'), commissionAsset: 'BTC', isMaker: true });
    bus.publish(trade('BTC_USDT'));
    // 100 USDT - 20 paid - 10 locked by the new order; position and balance both net the BTC fee.
    expect(seen.a).toEqual(['fill:BTC_USDT', 'trade:BTC_USDT', 'open=1 free=70 locked=10 pos=1.998 btc=1.998']);
  });

  it('a failing plugin is stopped and reported; the others keep running', () => {
    const { bus, seen, host } = harness();
    host.start();
    bus.publish({ type: 'timer', E: 5 });
    bus.publish({ type: 'timer', E: 6 });
    expect(seen.bad).toEqual(['timer']);
    expect(seen.b).toEqual(['timer', 'timer']);
    // t: the run's clock when it failed (a backtest reports when its strategy stopped).
    expect(host.failures).toEqual([{ strategy: 'bad', phase: 'event', error: 'boom', t: 1000 }]);
  });

  it('risk rejections reach the strategy as events after its handler returns, and nothing reaches the venue', () => {
    const { bus, seen, host, sent } = harness(() => ({ kind: 'reject', reason: 'LOT_SIZE', message: 'quantity=1 below minQty' }));
    host.start();
    bus.publish(trade('BTC_USDT'));
    expect(sent).toEqual([]);
    expect(seen.a).toEqual(['trade:BTC_USDT', 'open=0 free=100 locked=0 pos=0 btc=0']);
    host.flush();
    expect(seen.a?.slice(2)).toEqual(['intentRejected']);
  });

  it('validates parameters with the plugin schema, naming the path', () => {
    const { host } = harness();
    const bad = new StrategyRunner(
      [{ name: 'x', plugin: defineStrategy({ name: 'x', description: '', params: z.object({ n: z.number() }), create: () => ({ onEvent: () => undefined }) }), params: { n: 'no' }, symbols: ['BTC_USDT'], budget: {} }],
      { bus: new Bus(), clock: new VirtualClock(), venue: { name: 'v', submit: () => undefined }, books: () => undefined, gate: acceptAll, log: silentLogger },
    );
    expect(() => bad.start()).toThrow(/strategy x: params\.n/);
    void host;
    void ZERO;
  });
});
