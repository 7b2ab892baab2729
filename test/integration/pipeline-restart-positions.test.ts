/**
 * What a strategy knows of itself after a restart: RunSession (as `kancil run` composes it) trades
 * against the sandbox, stops without cancelling (as a crash leaves things: a fill done, an order
 * resting), and starts again on the same ledger. The strategy must then see the position and the
 * budget its earlier run left (the fills are the account's, whichever run made them) and the order
 * still resting on the book as its own; an inventory-limited strategy that saw a flat position and
 * a full budget would buy its whole inventory a second time, and a daily loss limit already
 * reached today must stay reached.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { runLogger } from '../../src/cli/run.js';
import { RunSession } from '../../src/cli/runSession.js';
import { Decimal, ZERO } from '../../src/core/decimal.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { ALICE, logSink, sandboxDoc, waitFor } from './pipeline-harness.js';

/** What the strategy saw on its first timer with a ready book, per run. */
interface View {
  position: string;
  btc: string;
  idr: string;
  idrLocked: string;
  open: string[];
}
const views: View[] = [];
const placed: string[] = [];
let probe: string | undefined;
const refusals: string[] = [];

/** Buys 0.001 BTC (taker) and rests a bid, but only while it holds no BTC and has no order. */
const inventory = defineStrategy({
  name: 'inventory',
  description: 'test: one inventory buy and one resting bid, unless it already holds them',
  params: z.object({}),
  create(ctx) {
    let looked = false;
    return {
      onEvent(e) {
        if (e.type === 'intentRejected' && e.intent.kind === 'place' && e.intent.clientId === probe) refusals.push(e.reason);
        const ask = ctx.book('BTC_IDR')?.bestAsk();
        if (looked || e.type !== 'timer' || !ask) return;
        looked = true;
        const idr = ctx.balance('IDR');
        const btc = ctx.balance('BTC');
        views.push({ position: ctx.position('BTC').toFixed(), btc: btc.free.plus(btc.locked).toFixed(), idr: idr.free.plus(idr.locked).toFixed(), idrLocked: idr.locked.toFixed(), open: ctx.openOrders().map((o) => o.clientId) });
        if (!ctx.position('BTC').isZero()) {
          // More inventory: today's loss (the first run's taker fee) is past the limit, so refused.
          probe = ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('900000000'), quantity: new Decimal('0.0001') });
          return;
        }
        if (ctx.openOrders().length > 0) return;
        placed.push(ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', price: ask.price.plus(1000), quantity: new Decimal('0.001') }));
        placed.push(ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal('900000000'), quantity: new Decimal('0.001') }));
      },
    };
  },
});

const BUDGET = { IDR: '10000000000', BTC: '0' };
let sandbox: RunningSandbox;
let dir: string;
const logText: string[] = [];

function start(): Promise<RunSession> {
  const config = parseRunConfig(
    {
      mode: 'live',
      name: 'restart-positions',
      exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url, recvWindow: 1000 },
      strategies: [{ name: 'inv', plugin: 'inventory', symbols: ['BTC_IDR'], budget: BUDGET, risk: { dailyLossLimit: '100' } }],
      storage: { path: path.join(dir, 'ledger.db') },
      run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: false },
      logging: { level: 'debug' },
    },
    'restart-positions.yaml',
  );
  return RunSession.start({
    config,
    endpoints: sandbox.urls,
    credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret },
    plugins: new Map<string, StrategyPlugin>([['inv', inventory]]),
    log: runLogger('debug', logSink(logText)),
    bookReadyTimeoutMs: 5000,
  });
}

/** Alice's total (free + locked) of an asset on the exchange. */
const total = (asset: string): Decimal => {
  const b = sandbox.engine.balances(ALICE.id).find((x) => x.asset === asset);
  return b ? b.free.plus(b.locked) : ZERO;
};

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'pipeline-restart-positions', process.cwd()));
  dir = mkdtempSync(path.join(tmpdir(), 'kancil-restart-positions-'));
});

afterAll(async () => {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('restart: the strategy keeps what its earlier run holds', () => {
  it('sees its earlier fills in position and budget and its resting order as its own, and buys nothing twice', async () => {
    const idrBefore = total('IDR');
    const btcBefore = total('BTC');
    const first = await start();
    const resting = () => sandbox.engine.openOrders(ALICE.id, 'BTC_IDR').some((o) => o.clientId === placed[1]);
    const filled = () => sandbox.engine.allOrders(ALICE.id, 'BTC_IDR').some((o) => o.clientId === placed[0] && o.status === 'FILLED');
    expect(await waitFor(() => resting() && filled() && first.ledger.fills().length > 0, 10_000), logText.join('')).toBe(true);
    await first.stop('test: stop without cancelling');
    const ordersAfterFirst = sandbox.engine.allOrders(ALICE.id, 'BTC_IDR').length;

    const second = await start();
    try {
      expect(await waitFor(() => views.length === 2 && refusals.length > 0, 10_000), logText.join('')).toBe(true);
    } finally {
      await second.stop('test done');
    }
    const [before, after] = views;
    expect(before).toEqual({ position: '0', btc: '0', idr: BUDGET.IDR, idrLocked: '0', open: [] });
    // The account's change since the first start is the strategy's, fees included.
    const btcBought = total('BTC').minus(btcBefore);
    const idrSpent = idrBefore.minus(total('IDR'));
    expect(btcBought.gt(0)).toBe(true);
    expect(after?.btc).toBe(btcBought.toFixed());
    // The position is what the fills left on the account: 0.001 bought, less its commission taken in BTC.
    expect(after?.position).toBe(btcBought.toFixed());
    expect(new Decimal(after?.position ?? '0').lt('0.001')).toBe(true);
    expect(after?.idr).toBe(new Decimal(BUDGET.IDR).minus(idrSpent).toFixed());
    expect(after?.idrLocked).toBe('900000');
    expect(after?.open).toEqual([placed[1]]);
    // The loss limit counts the first run's fills of today too (about 1,000 IDR of taker fee).
    expect(refusals).toEqual(['DAILY_LOSS_LIMIT']);
    // Nothing bought or placed again.
    expect(sandbox.engine.allOrders(ALICE.id, 'BTC_IDR')).toHaveLength(ordersAfterFirst);
    expect(placed).toHaveLength(2);
    // Two start-ups, reconciliations and WebSocket API sessions at debug level: no credential.
    const text = logText.join('');
    expect(text).toContain('"level":20');
    for (const secret of [ALICE.apiKey, ALICE.secret]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/signature/i);
  }, 30_000);
});
