/**
 * Live balances over loopback: a live run against the sandbox and a paper run, each with a
 * strategy that rests one order and takes one fill. The run's balances (what the console and
 * metrics read) and the ledger's latest rows must equal the account's on the exchange (live) or
 * the engine's (paper), locked amounts included, after the trading, not only at start-up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { runLogger } from '../../src/cli/run.js';
import { RunSession } from '../../src/cli/runSession.js';
import { Decimal } from '../../src/core/decimal.js';
import type { Balance } from '../../src/core/types.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { ALICE, logSink, sandboxDoc, waitFor } from './pipeline-harness.js';

const ids: { resting?: string; taker?: string } = {};
const filled = { n: 0 };

const rester = defineStrategy({
  name: 'rester',
  description: 'test: one resting buy far below, one small taker buy',
  params: z.object({}),
  create(ctx) {
    let placed = false;
    return {
      onEvent(e) {
        if (e.type === 'fill') filled.n++;
        const book = ctx.book('BTC_IDR');
        if (placed || e.type !== 'timer' || !book?.ready) return;
        const ask = book.bestAsk();
        const bid = book.bestBid();
        if (!ask || !bid) return;
        placed = true;
        ids.resting = ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: bid.price.mul('0.95').floor(), quantity: new Decimal('0.002') });
        ids.taker = ctx.place({ symbol: 'BTC_IDR', side: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', price: ask.price.plus(1000), quantity: new Decimal('0.0001') });
      },
    };
  },
});

const text = (bs: readonly Balance[]): string[] => bs.filter((b) => !(b.free.isZero() && b.locked.isZero())).map((b) => `${b.asset} ${b.free.toFixed()} ${b.locked.toFixed()}`).sort();

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'run-balances', process.cwd()));
});
afterAll(async () => {
  await sandbox.stop();
});

async function start(mode: 'live' | 'paper'): Promise<RunSession> {
  ids.resting = undefined;
  filled.n = 0;
  const config = parseRunConfig(
    {
      mode,
      name: `balances-${mode}`,
      exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url },
      strategies: [{ name: 'rester', plugin: 'rester', symbols: ['BTC_IDR'], budget: { IDR: '10000000000', BTC: '1' } }],
      storage: { path: ':memory:' },
      run: { timerMs: 100, statusIntervalSec: 60, cancelOnShutdown: true },
    },
    `balances-${mode}.yaml`,
  );
  const logs: string[] = [];
  return RunSession.start({
    config,
    endpoints: sandbox.urls,
    credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret },
    plugins: new Map<string, StrategyPlugin>([['rester', rester]]),
    log: runLogger('warn', logSink(logs)),
    bookReadyTimeoutMs: 5000,
  });
}

describe('live balances', () => {
  it('live: after a resting order and a fill, the run and its ledger show the exchange account, locked included', async () => {
    const session = await start('live');
    try {
      const exchange = (): string[] => text(sandbox.engine.balances(ALICE.id));
      expect(await waitFor(() => ids.resting !== undefined && filled.n > 0 && session.parts.tracker.get(ids.resting)?.state === 'NEW', 15_000)).toBe(true);
      expect(await waitFor(() => JSON.stringify(text(session.parts.balances())) === JSON.stringify(exchange()), 10_000), `${JSON.stringify(text(session.parts.balances()))} vs ${JSON.stringify(exchange())}`).toBe(true);
      expect(exchange().some((l) => l.startsWith('IDR ') && !l.endsWith(' 0'))).toBe(true); // the resting buy locks IDR
      expect(text(session.ledger.latestBalances())).toEqual(exchange());
      // Equity in IDR (the first symbol's quote): BTC at the run's mark of BTC_IDR; USDT has no IDR pair in the run.
      const eq = session.parts.equity();
      const mark = session.parts.market.mark('BTC_IDR');
      const held = (a: string): Decimal => session.parts.balances().filter((x) => x.asset === a).reduce((s, x) => s.plus(x.free).plus(x.locked), new Decimal(0));
      expect(eq?.quote).toBe('IDR');
      expect(eq?.unvalued).toEqual(['USDT']);
      if (mark !== undefined) expect(eq?.value.toFixed()).toBe(held('IDR').plus(held('BTC').mul(eq?.prices.BTC ?? 0)).toFixed());
      expect(session.status()).toMatchObject({ equity: { quote: 'IDR', unvalued: ['USDT'] } });
    } finally {
      await session.stop('test done');
    }
  }, 40_000);

  it("paper: the engine's balances are the run's and the ledger's, from the start and after trading", async () => {
    const session = await start('paper');
    try {
      expect(session.ledger.latestBalances().length).toBeGreaterThan(0);
      const engine = (): string[] => text(session.parts.sim?.balances() ?? []);
      expect(await waitFor(() => ids.resting !== undefined && filled.n > 0 && session.parts.tracker.get(ids.resting)?.state === 'NEW', 15_000)).toBe(true);
      expect(await waitFor(() => JSON.stringify(text(session.ledger.latestBalances())) === JSON.stringify(engine()), 10_000), `${JSON.stringify(text(session.ledger.latestBalances()))} vs ${JSON.stringify(engine())}`).toBe(true);
      expect(text(session.parts.balances())).toEqual(engine());
      expect(engine().some((l) => l.startsWith('IDR ') && !l.endsWith(' 0'))).toBe(true);
    } finally {
      await session.stop('test done');
    }
  }, 40_000);
});
