/**
 * A live run trading a type 1 and a type 3 symbol opens both user data streams (the spec allows
 * both: the type 3 listen key under private-n and, for type 1, a listen token on the WebSocket
 * API), so neither type's orders are polled; and a config without ws_api_url takes the WebSocket
 * API address from /v1/common/system-config instead of falling back to the deprecated listen key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { BusEvent } from '../../src/bus/events.js';
import { parseRunConfig } from '../../src/cli/runConfig.js';
import { runLogger } from '../../src/cli/run.js';
import { RunSession } from '../../src/cli/runSession.js';
import { LISTEN_KEY_DEPRECATED } from '../../src/cli/userStream.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { TEST_ACCOUNTS, testSandboxConfig } from '../../src/sandbox/test-config.js';
import { defineStrategy, type StrategyPlugin } from '../../src/strategy/types.js';
import { logSink, waitFor } from './pipeline-harness.js';

const idle = defineStrategy({ name: 'idle', description: 'test: trades nothing', params: z.object({}), create: () => ({ onEvent: () => undefined }) });

let sandbox: RunningSandbox;
const logText: string[] = [];
const seen: BusEvent[] = [];
let session: RunSession;

beforeAll(async () => {
  sandbox = await startSandbox(testSandboxConfig(), { quiet: true });
  const { ws_api_url: published, ...urls } = sandbox.urls;
  expect(published).toMatch(/ws-api/);
  const config = parseRunConfig(
    {
      mode: 'live',
      name: 'user-streams',
      exchange: { base_url: urls.base_url, market_url: urls.market_url, depth_url: urls.depth_url, stream_url: urls.stream_url, stream_url_new: urls.stream_url_new },
      strategies: [{ name: 'idle', plugin: 'idle', symbols: ['BTC_IDR', 'ALCH_IDR'] }],
      storage: { path: ':memory:' },
      run: { timerMs: 0, statusIntervalSec: 60, cancelOnShutdown: true },
      logging: { level: 'debug' },
    },
    'user-streams.yaml',
  );
  const a = TEST_ACCOUNTS.alice;
  session = await RunSession.start({
    config,
    endpoints: urls,
    credentials: { apiKey: a.apiKey, apiSecret: a.secret },
    plugins: new Map<string, StrategyPlugin>([['idle', idle]]),
    log: runLogger('debug', logSink(logText)),
    bookReadyTimeoutMs: 300,
  });
  session.bus.events$.subscribe((e) => seen.push(e));
}, 30_000);

afterAll(async () => {
  await session.stop('test done');
  await sandbox.stop();
});

describe('user data streams of a run with type 1 and type 3 symbols', () => {
  it('opens the type 3 listen key and the type 1 listen token (address from system-config), polls neither type', async () => {
    const log = logText.join('');
    expect(log).toContain('WebSocket API address from /v1/common/system-config');
    expect(log).not.toContain(LISTEN_KEY_DEPRECATED);
    expect(log).not.toContain('their orders are polled');
    // One listen key, of type 3 (type 1 uses the token); both streams come back after a drop.
    const keys = sandbox.registry.listenKeysOf(TEST_ACCOUNTS.alice.id);
    expect(keys.map((k) => sandbox.registry.listenKeyAccount(k)?.kind)).toEqual([3]);
    sandbox.faults.dropConnections();
    const up = (name: string): boolean => seen.some((e) => e.type === 'connection' && e.connection === name && e.status === 'up');
    expect(await waitFor(() => up('user:type1') && up('user:type3'), 10_000)).toBe(true);
  });
});
