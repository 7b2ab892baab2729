/**
 * A fill that happens while the user data stream is down is not lost: the stream reports that a
 * reconciliation is needed after it reconnects, the pipeline halts new orders, the router fetches
 * open orders, trades and balances, the fill reaches the ledger and the strategy, and trading
 * resumes. Against the sandbox over loopback, with its fault injection dropping every connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pino } from 'pino';
import type { BusEvent } from '../../src/bus/events.js';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { RunSession } from '../../src/cli/runSession.js';
import { Decimal } from '../../src/core/decimal.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { defineStrategy } from '../../src/strategy/types.js';
import { ALICE, BOB, sandboxDoc, waitFor } from './pipeline-harness.js';

const seen: BusEvent[] = [];
let restingId: string | undefined;
const PRICE = new Decimal('800000000');

const resting = defineStrategy({
  name: 'resting',
  description: 'test: one resting buy far below the market',
  params: z.object({}),
  create(ctx) {
    return {
      onEvent(e) {
        seen.push(e);
        if (restingId === undefined && e.type === 'timer') {
          restingId = ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: PRICE, quantity: new Decimal('0.001') });
        }
      },
    };
  },
});

let sandbox: RunningSandbox;
let session: RunSession;

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'pipeline-reconnect', process.cwd()));
  const config = parseRunConfig(
    {
      mode: 'live',
      exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url },
      strategies: [{ name: 'rest', plugin: 'resting', symbols: ['BTC_IDR'], budget: { IDR: '10000000000' } }],
      storage: { path: ':memory:' },
      run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: true },
    },
    'pipeline-reconnect.yaml',
  );
  session = await RunSession.start({
    config,
    endpoints: sandbox.urls,
    credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret },
    plugins: new Map([['rest', resting]]),
    log: pino({ level: 'silent' }),
    bookReadyTimeoutMs: 5000,
  });
}, 20_000);

afterAll(async () => {
  await session.stop('test done');
  await sandbox.stop();
});

describe('user stream reconnect', () => {
  it('recovers a fill missed while disconnected through reconciliation, halting new orders meanwhile', async () => {
    expect(await waitFor(() => seen.some((e) => e.type === 'orderUpdate' && e.clientId === restingId && e.state === 'NEW'))).toBe(true);
    const reconcilesBefore = session.router?.stats.reconciliations ?? 0;
    // Drop every connection, then fill our order while nothing can be pushed to us.
    expect(sandbox.faults.dropConnections()).toBeGreaterThan(0);
    // Bob sweeps the (small) synthetic bids down to our price; the rest of his IOC order expires.
    sandbox.state.exec((e, t) => e.placeOrder({ accountId: BOB.id, symbol: 'BTC_IDR', side: 'SELL', type: 'LIMIT', timeInForce: 'IOC', price: PRICE, quantity: new Decimal('1') }, t));
    expect(sandbox.engine.allOrders(ALICE.id, 'BTC_IDR').find((o) => o.clientId === restingId)?.status).toBe('FILLED');

    expect(await waitFor(() => seen.some((e) => e.type === 'fill' && e.clientId === restingId), 10_000)).toBe(true);
    expect(session.router?.stats.reconciliations ?? 0).toBeGreaterThan(reconcilesBefore);
    const fills = session.ledger.fills(restingId);
    expect(fills).toHaveLength(1);
    expect(fills[0]?.qty.eq('0.001')).toBe(true);
    expect(session.ledger.order(restingId ?? '')?.state).toBe('FILLED');
    // New orders were halted while reconciling, then trading resumed.
    const states = () => seen.filter((e) => e.type === 'tradingState').map((e) => (e.type === 'tradingState' ? e.state : ''));
    expect(states()).toContain('HALTED');
    // The fill is applied during reconciliation; trading resumes once it (and the balances) are done.
    expect(await waitFor(() => states().at(-1) === 'ACTIVE', 5000), states().join(',')).toBe(true);
  }, 20_000);
});
