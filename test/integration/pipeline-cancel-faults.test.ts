/**
 * Cancels whose answer is lost, driven over loopback through the live pipeline exactly as
 * `kancil run` composes it (RunSession: strategy runner, risk gate, order router, user data
 * stream, ledger) against the sandbox's cancel faults:
 * (a) the exchange cancels the order and answers 5XX: the order ends CANCELED, nothing else is
 *     sent for it, the strategy sees one terminal update;
 * (b) the exchange answers 5XX without cancelling: the router sends the cancel again, the order
 *     ends CANCELED on the exchange, and a fill that lands before the retry is recorded;
 * (c) shutdown's cancel-all loses its answer to a dropped connection after the exchange cancelled:
 *     the bot exits with nothing left open.
 * Beside them, an order the exchange accepts and then rejects: the user stream's executionReport
 * (execution type and status REJECTED) ends it REJECTED with its reason, in the ledger and at the
 * strategy, and nothing is sent again for it.
 * Requests are counted at the network, in front of the sandbox's main host; the proxy passes a
 * dropped connection on as a drop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BusEvent } from '../../src/bus/events.js';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { runLogger } from '../../src/cli/run.js';
import { RunSession } from '../../src/cli/runSession.js';
import type { RunSummary } from '../../src/cli/runStatus.js';
import { Decimal } from '../../src/core/decimal.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { ALICE, BOB, countingProxy, logSink, sandboxDoc, waitFor, type CountingProxy } from './pipeline-harness.js';

/** Retry pacing of the router in this run: short, so a lost cancel is sent again quickly. */
const CANCEL_RETRY_MS = 500;

/** Orders the test asks the strategy to place (by price) and cancel (by clientId), done on its next timer. */
const commands: ({ kind: 'place'; price: string; done: (clientId: string) => void } | { kind: 'cancel'; clientId: string })[] = [];
const seen: BusEvent[] = [];

const puppet = defineStrategy({
  name: 'puppet',
  description: 'test: places resting buys and cancels them when the test says so',
  params: z.object({}),
  create(ctx) {
    return {
      onEvent(e) {
        seen.push(e);
        if (e.type !== 'timer' || !ctx.book('BTC_IDR')?.ready) return;
        for (const c of commands.splice(0)) {
          if (c.kind === 'cancel') ctx.cancel('BTC_IDR', c.clientId);
          else c.done(ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: new Decimal(c.price), quantity: new Decimal('0.001') }));
        }
      },
    };
  },
});

let sandbox: RunningSandbox;
let proxy: CountingProxy;
let session: RunSession;
const logText: string[] = [];

const exchangeOrder = (clientId: string) => sandbox.engine.allOrders(ALICE.id, 'BTC_IDR').find((o) => o.clientId === clientId);
const ledgerState = (clientId: string) => session.ledger.order(clientId)?.state;
const updates = (clientId: string) => seen.filter((e) => e.type === 'orderUpdate' && e.clientId === clientId).map((e) => (e.type === 'orderUpdate' ? e.state : ''));
const terminal = (clientId: string) => updates(clientId).filter((s) => s === 'CANCELED' || s === 'FILLED' || s === 'REJECTED' || s === 'EXPIRED');
const cancels = () => proxy.count('POST', '/open/v1/orders/cancel');
const places = () => proxy.count('POST', '/open/v1/orders');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function place(price: string): Promise<string> {
  const clientId = await new Promise<string>((resolve) => commands.push({ kind: 'place', price, done: resolve }));
  expect(await waitFor(() => ledgerState(clientId) === 'NEW', 5000)).toBe(true);
  return clientId;
}

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'pipeline-cancel-faults', process.cwd()));
  proxy = await countingProxy(sandbox.urls.base_url, { passDrops: true });
  const config = parseRunConfig(
    {
      mode: 'live',
      name: 'pipeline-cancel-faults',
      exchange: { base_url: proxy.url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url },
      strategies: [{ name: 'puppet', plugin: 'puppet', symbols: ['BTC_IDR'], budget: { IDR: '10000000000', BTC: '1' } }],
      storage: { path: ':memory:' },
      run: { timerMs: 50, statusIntervalSec: 60, cancelOnShutdown: true },
      logging: { level: 'debug' },
    },
    'pipeline-cancel-faults.yaml',
  );
  session = await RunSession.start({
    config,
    endpoints: { ...sandbox.urls, base_url: proxy.url },
    credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret },
    plugins: new Map<string, StrategyPlugin>([['puppet', puppet]]),
    log: runLogger('debug', logSink(logText), false),
    bookReadyTimeoutMs: 5000,
    router: { pollMs: 50, cancelRetryMs: CANCEL_RETRY_MS },
  });
}, 30_000);

afterAll(async () => {
  await session.stop('test done');
  await proxy.close();
  await sandbox.stop();
});

describe('lost cancel answers through the live pipeline', () => {
  it('(a) cancelled on the exchange but answered 5XX: CANCELED in the ledger, nothing more sent for it, one terminal update', async () => {
    const a = await place('900000000');
    const [placed, cancelled] = [places(), cancels()];
    sandbox.faults.failCancels('apply-then-5xx', { status: 502, scope: 'open' });
    commands.push({ kind: 'cancel', clientId: a });
    expect(await waitFor(() => ledgerState(a) === 'CANCELED' && terminal(a).length > 0, 5000)).toBe(true);
    expect(exchangeOrder(a)?.status).toBe('CANCELED');
    const settled = cancels();
    // The 5XX'd cancel, and at most one retry that the exchange refused as not open (when the
    // stream's report came after the retry was due).
    expect(settled - cancelled).toBeGreaterThanOrEqual(1);
    expect(settled - cancelled).toBeLessThanOrEqual(2);
    // Several retry periods later, nothing more went out for it: no cancel, no placement.
    await sleep(3 * CANCEL_RETRY_MS);
    expect(cancels()).toBe(settled);
    expect(places()).toBe(placed);
    expect(terminal(a)).toEqual(['CANCELED']);
  });

  it('(b) answered 5XX without cancelling: sent again and CANCELED on the exchange; a fill before the retry is recorded', async () => {
    const b = await place('900000000');
    // Freeze the market and take its liquidity away, so bob's sell can only meet our order.
    for (const f of sandbox.feeds) f.stop();
    sandbox.state.exec((e, now) => e.applyDepthSnapshot('BTC_IDR', { bids: [], asks: [] }, now));
    const cancelled = cancels();
    sandbox.faults.failCancels('5xx-without-apply', { scope: 'open' });
    commands.push({ kind: 'cancel', clientId: b });
    expect(await waitFor(() => cancels() > cancelled, 5000)).toBe(true);
    // The refused cancel left the order resting: it fills before the router tries again.
    expect(exchangeOrder(b)?.status).toBe('NEW');
    sandbox.state.exec((e, now) =>
      e.placeOrder({ accountId: BOB.id, symbol: 'BTC_IDR', side: 'SELL', type: 'LIMIT', timeInForce: 'IOC', price: new Decimal('900000000'), quantity: new Decimal('0.0004') }, now),
    );
    expect(exchangeOrder(b)?.executedQty.toFixed()).toBe('0.0004');
    expect(await waitFor(() => ledgerState(b) === 'CANCELED', 5000)).toBe(true);
    const onExchange = exchangeOrder(b);
    expect(onExchange?.status).toBe('CANCELED');
    expect(onExchange?.executedQty.toFixed()).toBe('0.0004');
    expect(cancels() - cancelled).toBeGreaterThanOrEqual(2);
    // The fill is in the ledger and reached the strategy, once.
    expect(session.ledger.order(b)?.cumQty.toFixed()).toBe('0.0004');
    const fills = seen.filter((e) => e.type === 'fill' && e.clientId === b);
    expect(fills.reduce((s, f) => (f.type === 'fill' ? s.plus(f.qty) : s), new Decimal(0)).toFixed()).toBe('0.0004');
    expect(await waitFor(() => terminal(b).length > 0, 2000)).toBe(true);
    expect(terminal(b)).toEqual(['CANCELED']);
  });

  it('accepted, then rejected on the user stream: REJECTED with its reason in the ledger and at the strategy, not sent again', async () => {
    sandbox.faults.rejectAcceptedOrders('INSUFFICIENT_BALANCE');
    const placed = places();
    const r = await new Promise<string>((resolve) => commands.push({ kind: 'place', price: '870000000', done: resolve }));
    expect(await waitFor(() => ledgerState(r) === 'REJECTED' && terminal(r).length > 0, 5000)).toBe(true);
    expect(exchangeOrder(r)?.status).toBe('REJECTED');
    expect(session.ledger.order(r)?.reason).toBe('INSUFFICIENT_BALANCE');
    const last = seen.filter((e) => e.type === 'orderUpdate' && e.clientId === r).at(-1);
    expect(last?.type === 'orderUpdate' ? [last.state, last.reason] : []).toEqual(['REJECTED', 'INSUFFICIENT_BALANCE']);
    await sleep(500);
    expect(places() - placed).toBe(1);
    expect(terminal(r)).toEqual(['REJECTED']);
  });

  it('(c) shutdown cancel-all whose connection drops after the exchange cancelled: the bot exits with nothing open', async () => {
    const c = await place('890000000');
    const d = await place('880000000');
    sandbox.faults.failCancels('apply-then-drop', { scope: 'open', count: 2 });
    const summary: RunSummary = await session.stop('test: shutdown');
    expect(summary.reason).toBe('test: shutdown');
    expect(sandbox.engine.openOrders(ALICE.id, 'BTC_IDR')).toEqual([]);
    expect(exchangeOrder(c)?.status).toBe('CANCELED');
    expect(exchangeOrder(d)?.status).toBe('CANCELED');
    const lines = logText.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { msg?: string; clientId?: string; err?: { name?: string } });
    // Both shutdown cancels really lost their answer (unknown outcome), and nothing was left live.
    const lost = lines.filter((l) => l.msg?.startsWith('cancel failed') && l.err?.name === 'UnknownOutcomeError').map((l) => l.clientId);
    expect(lost).toEqual(expect.arrayContaining([c, d]));
    expect(lines.some((l) => l.msg?.startsWith('orders still live or unresolved at shutdown'))).toBe(false);
  });
});
