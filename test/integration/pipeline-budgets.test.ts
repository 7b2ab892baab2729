/**
 * Budgets against the account at start-up (live, RunSession against the sandbox): strategies whose
 * budgets together exceed what the account has free are refused before any of them starts, so two
 * strategies can never both spend the same coins; budgets that fit start normally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { runLogger } from '../../src/cli/run.js';
import { RunSession } from '../../src/cli/runSession.js';
import { ConfigError } from '../../src/core/errors.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { ALICE, logSink, sandboxDoc } from './pipeline-harness.js';

let started = 0;
const idle = defineStrategy({
  name: 'idle',
  description: 'test: counts its starts, trades nothing',
  params: z.object({}),
  create: () => ({ onStart: () => void started++, onEvent: () => undefined }),
});

let sandbox: RunningSandbox;
const logText: string[] = [];

/** Alice holds 10 BTC (sandboxDoc); two strategies with these BTC budgets. */
function start(btc: [string, string]): Promise<RunSession> {
  const config = parseRunConfig(
    {
      mode: 'live',
      name: 'budgets',
      exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url },
      strategies: [
        { name: 'mm', plugin: 'idle', symbols: ['BTC_IDR'], budget: { BTC: btc[0], IDR: '1000000' } },
        { name: 'grid', plugin: 'idle', symbols: ['BTC_IDR'], budget: { BTC: btc[1] } },
      ],
      storage: { path: ':memory:' },
      run: { timerMs: 0, statusIntervalSec: 60, cancelOnShutdown: true },
      logging: { level: 'warn' },
    },
    'budgets.yaml',
  );
  return RunSession.start({
    config,
    endpoints: sandbox.urls,
    credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret },
    plugins: new Map<string, StrategyPlugin>([
      ['mm', idle],
      ['grid', idle],
    ]),
    log: runLogger('warn', logSink(logText)),
    bookReadyTimeoutMs: 5000,
  });
}

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc({ synthetic: true }), 'pipeline-budgets', process.cwd()));
});

afterAll(async () => {
  await sandbox.stop();
});

describe('strategy budgets against the account', () => {
  it('refuses to start strategies that could together spend more than the account has free', async () => {
    const err = await start(['6', '4.00000001']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('strategies.budget.BTC="10.00000001": the strategies may spend 10.00000001 BTC together (mm 6, grid 4.00000001) but the account has 10 BTC free');
    expect(started).toBe(0);
  }, 15_000);

  it('starts them when the budgets fit, to the last digit', async () => {
    const s = await start(['6', '4']);
    expect(started).toBe(2);
    await s.stop('test done');
  }, 15_000);
});
