/**
 * The server-time offset is measured again while a live run goes on: after the exchange's clock
 * and ours move apart (an NTP step, a suspended VM), signed orders are accepted again within a
 * resync period instead of being refused as outside the recvWindow until the bot is restarted.
 * The sandbox's clock is shifted under a running bot.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { RunSession } from '../../src/cli/runSession.js';
import { placeIntents } from '../../src/execution/testIntents.js';
import { resolveSandboxConfig, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { defineStrategy } from '../../src/strategy/types.js';
import { ALICE, sandboxDoc } from './pipeline-harness.js';

const idle = defineStrategy({ name: 'idle', description: 'test: places nothing', params: z.object({}), create: () => ({ onEvent: () => undefined }) });

let shiftMs = 0;
let sandbox: RunningSandbox;
let session: RunSession;

beforeAll(async () => {
  sandbox = await startSandbox(resolveSandboxConfig(sandboxDoc(), 'pipeline-clock', process.cwd()), { quiet: true, clock: { now: () => Date.now() + shiftMs } });
  const config = parseRunConfig(
    {
      mode: 'live',
      exchange: { base_url: sandbox.urls.base_url, market_url: sandbox.urls.market_url, stream_url: sandbox.urls.stream_url, ws_api_url: sandbox.urls.ws_api_url, recvWindow: 2000 },
      strategies: [{ name: 'idle', plugin: 'idle', symbols: ['BTC_IDR'] }],
      storage: { path: ':memory:' },
      run: { timerMs: 0, statusIntervalSec: 60, cancelOnShutdown: true },
    },
    'pipeline-clock.yaml',
  );
  session = await RunSession.start({
    config,
    endpoints: sandbox.urls,
    credentials: { apiKey: ALICE.apiKey, apiSecret: ALICE.secret },
    plugins: new Map([['idle', idle]]),
    log: pino({ level: 'silent' }),
    bookReadyTimeoutMs: 500,
    timeSyncMs: 100,
  });
}, 20_000);

afterAll(async () => {
  await session.stop('test done');
  await sandbox.stop();
});

const place = placeIntents('idle', (n) => ({ intentId: `clk-${n}`, clientId: `clk-${Date.now().toString(36)}-${n}` }));

describe('server time offset during a run', () => {
  it('orders are accepted again after the exchange clock moved 20 s away from ours', async () => {
    const router = session.router;
    if (!router) throw new Error('live run without a router');
    shiftMs = 20_000;
    // Within a few resync periods the signed timestamp follows the exchange's clock again.
    const states: string[] = [];
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline && states.at(-1) !== 'NEW') {
      const i = place();
      router.submit(i);
      await router.idle();
      states.push(session.ledger.order(i.clientId)?.state ?? 'missing');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(states.at(-1), states.join(' ')).toBe('NEW');
  });
});
