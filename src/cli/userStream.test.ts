import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { OpenClient } from '../exchange/open/OpenClient.js';
import { ListenKeyUserStream } from '../exchange/stream/listen-key-stream.js';
import { ListenTokenUserStream } from '../exchange/stream/listen-token-stream.js';
import { runLogger } from './run.js';
import { LISTEN_KEY_DEPRECATED, userStream } from './userStream.js';

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
    const chosen = userStream({ stream_url: 'ws://127.0.0.1:9/stream' }, open, [], log);
    expect(chosen.stream).toBeInstanceOf(ListenKeyUserStream);
    expect(chosen.covers).toBe(1);
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
    const chosen = userStream({ stream_url: 'ws://127.0.0.1:9/stream', ws_api_url: 'ws://127.0.0.1:9/ws-api/v3' }, open, [], log);
    expect(chosen.stream).toBeInstanceOf(ListenTokenUserStream);
    expect(lines().filter((l) => l.level === 40)).toEqual([]);
    await open.close();
  });
});
