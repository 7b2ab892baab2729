import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { OpenClient } from '../exchange/open/OpenClient.js';
import { ListenKeyUserStream } from '../exchange/stream/listen-key-stream.js';
import { ListenTokenUserStream } from '../exchange/stream/listen-token-stream.js';
import { runLogger } from './run.js';
import type { SymbolInfo } from '../core/types.js';
import { LISTEN_KEY_DEPRECATED, discoverWsApiUrl, userStreams } from './userStream.js';

const KEY = 'userStreamTestKey-0123456789abcdef0123456789';
const SECRET = 'userStreamTestSecret-0123456789abcdef012345';

function setup(): { open: OpenClient; lines: () => Record<string, unknown>[]; text: () => string; log: ReturnType<typeof runLogger> } {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(chunk.toString());
      cb();
    },
  });
  // Nothing connects: the streams are only built, never started.
  const open = new OpenClient({ baseUrl: 'http://127.0.0.1:9', marketUrl: 'http://127.0.0.1:9', depthUrl: 'http://127.0.0.1:9', apiKey: KEY, apiSecret: SECRET });
  const text = (): string => out.join('');
  const lines = (): Record<string, unknown>[] => text().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { open, lines, text, log: runLogger('debug', sink, false) };
}

describe('userStream', () => {
  it('without ws_api_url: falls back to the type 1 listen key and warns once, naming the deprecation and the setting, with no secret', async () => {
    const { open, lines, text, log } = setup();
    const chosen = userStreams({ stream_url: 'ws://127.0.0.1:9/stream' }, open, [], log);
    expect(chosen.streams).toHaveLength(1);
    expect(chosen.streams[0]).toBeInstanceOf(ListenKeyUserStream);
    expect([...chosen.covers]).toEqual([1]);
    const warnings = lines().filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toBe(LISTEN_KEY_DEPRECATED);
    expect(LISTEN_KEY_DEPRECATED).toMatch(/deprecated/);
    expect(LISTEN_KEY_DEPRECATED).toContain('2026-04-30');
    expect(LISTEN_KEY_DEPRECATED).toContain('ws_api_url');
    expect(text()).not.toContain(KEY);
    expect(text()).not.toContain(SECRET);
    await open.close();
  });

  it('with ws_api_url: a listen token stream and no deprecation warning', async () => {
    const { open, lines, log } = setup();
    const chosen = userStreams({ stream_url: 'ws://127.0.0.1:9/stream', ws_api_url: 'ws://127.0.0.1:9/ws-api/v3' }, open, [], log);
    expect(chosen.streams.map((x) => x.constructor)).toEqual([ListenTokenUserStream]);
    expect(lines().filter((l) => l.level === 40)).toEqual([]);
    await open.close();
  });

  it('type 1 and type 3 symbols: both streams (type 3 listen key, type 1 listen token), covering both types', async () => {
    const { open, log } = setup();
    const symbols = [{ symbol: 'BTC_IDR', type: 1 }, { symbol: 'ALCH_IDR', type: 3 }, { symbol: 'DOGE_IDR', type: 2 }] as unknown as SymbolInfo[];
    const chosen = userStreams({ stream_url: 'ws://127.0.0.1:9', stream_url_new: 'ws://127.0.0.1:8', ws_api_url: 'ws://127.0.0.1:9/ws-api/v3' }, open, symbols, log);
    expect(chosen.streams.map((x) => [x.constructor, x.name])).toEqual([
      [ListenKeyUserStream, 'user:type3'],
      [ListenTokenUserStream, 'user:type1'],
    ]);
    expect([...chosen.covers].sort()).toEqual([1, 3]);
    // Type 3 alone: only its stream.
    const only3 = userStreams({ stream_url: 'ws://127.0.0.1:9', stream_url_new: 'ws://127.0.0.1:8' }, open, [symbols[1] as SymbolInfo], log);
    expect(only3.streams.map((x) => x.name)).toEqual(['user:type3']);
    await open.close();
  });

  it('discoverWsApiUrl: the address /v1/common/system-config publishes, else the first of its list, else undefined (logged)', async () => {
    const { lines, log } = setup();
    const of = (cfg: { wsApiUrl?: string; wsApiUrlList?: string[] }) => ({ systemConfig: () => Promise.resolve({ wsApiUrl: cfg.wsApiUrl, wsApiUrlList: cfg.wsApiUrlList ?? [], raw: {} }) });
    expect(await discoverWsApiUrl(of({ wsApiUrl: 'wss://a/ws-api/v3' }), log)).toBe('wss://a/ws-api/v3');
    expect(await discoverWsApiUrl(of({ wsApiUrlList: ['wss://b/ws-api/v3'] }), log)).toBe('wss://b/ws-api/v3');
    expect(await discoverWsApiUrl(of({}), log)).toBeUndefined();
    expect(await discoverWsApiUrl({ systemConfig: () => Promise.reject(new Error('HTTP 404')) }, log)).toBeUndefined();
    expect(lines().some((l) => l.level === 40 && String(l.err).includes('HTTP 404'))).toBe(true);
  });
});
