import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { runCommand, runLogger, stopReason } from './run.js';

const echo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../strategy/test-plugins/echo.ts');
const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kancil run', () => {
  it('refuses bad plugin params before connecting, naming strategies[i].params.<path> and the value', async () => {
    const file = path.join(dir, 'run.yaml');
    // The sandbox config does not exist: the params check must fail before anything starts.
    writeFileSync(file, `mode: paper\nsandbox: { config: missing.yaml }\nstrategies:\n  - { name: e, plugin: ${JSON.stringify(echo)}, symbols: [BTC_IDR], params: { spread: -1 } }\nstorage: { path: ':memory:' }\nlogging: { level: silent }\n`);
    const io = { stdout: () => undefined, stderr: () => undefined, env: {} };
    const err = await runCommand([file], io).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).path).toBe('strategies[0].params.spread');
    expect((err as ConfigError).message).toMatch(/run\.yaml: strategies\[0\]\.params\.spread=-1: .*plugin echo/);
  });

  it('logging.pretty: false writes JSON lines even to a terminal', () => {
    let out = '';
    const tty = Object.assign(new Writable({ write: (c: Buffer, _e, cb) => ((out += c.toString()), cb()) }), { isTTY: true });
    runLogger('info', tty, false).info({ n: 1 }, 'hello');
    expect(JSON.parse(out.trim())).toMatchObject({ n: 1, msg: 'hello' });
  });
});

describe('the run logger', () => {
  const sink = (isTTY: boolean, write: (s: string) => void): Writable =>
    Object.assign(
      new Writable({
        write: (c: Buffer, _e, cb) => {
          write(c.toString());
          cb();
        },
      }),
      { isTTY },
    );

  it('formats pretty lines in this thread, into the stream it was given (a terminal)', () => {
    let out = '';
    runLogger('info', sink(true, (s) => (out += s))).info({ n: 7 }, 'pretty hello');
    // Synchronously: no worker thread (whose file the built package lacked) formats them.
    expect(out).toContain('pretty hello');
    expect(out).toMatch(/INFO/);
    expect(() => JSON.parse(out)).toThrow();
  });

  it('keeps the run going when its output fails: one notice, then nothing more is written or thrown', () => {
    const notices: string[] = [];
    let writes = 0;
    const broken = sink(false, () => undefined);
    broken.write = () => {
      writes += 1;
      throw new Error('disk gone');
    };
    const log = runLogger('info', broken, false, undefined, (t) => notices.push(t));
    expect(() => {
      log.info('one');
      log.info('two');
    }).not.toThrow();
    expect(writes).toBe(1);
    expect(notices).toEqual([expect.stringContaining('log output failed (disk gone)')]);
  });

  it('a stream error (EPIPE from a reader that went away) stops its lines without a notice', () => {
    const notices: string[] = [];
    let out = '';
    const s = sink(false, (t) => (out += t));
    const log = runLogger('info', s, false, undefined, (t) => notices.push(t));
    log.info('before');
    s.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    log.info('after');
    expect(out).toContain('before');
    expect(out).not.toContain('after');
    expect(notices).toEqual([]);
  });
});

describe('the run duration', () => {
  it('a 30-day run keeps running past the 24.8 days one Node timer holds, and stops at 30 days', async () => {
    vi.useFakeTimers();
    try {
      const never = new Promise<string>(() => undefined);
      let reason: string | undefined;
      void stopReason(30 * 86_400, undefined, pino({ level: 'silent' }), never).then((r) => (reason = r));
      await vi.advanceTimersByTimeAsync(2 ** 31);
      expect(reason).toBeUndefined();
      await vi.advanceTimersByTimeAsync(30 * 86_400_000 - 2 ** 31 - 1);
      expect(reason).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(reason).toBe('duration 2592000 s');
    } finally {
      vi.useRealTimers();
    }
  });

  it('--duration must be a finite number of seconds', async () => {
    const io = { stdout: () => undefined, stderr: () => undefined, env: {} };
    const file = path.join(dir, 'duration.yaml');
    writeFileSync(file, `mode: paper\nsandbox: { config: missing.yaml }\nstrategies:\n  - { name: e, plugin: ${JSON.stringify(echo)}, symbols: [BTC_IDR] }\nstorage: { path: ':memory:' }\nlogging: { level: silent }\n`);
    const err = await runCommand([file, '--duration', '9'.repeat(400)], io).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/--duration=.*must be a number of seconds/);
  });
});
