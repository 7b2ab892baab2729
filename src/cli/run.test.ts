import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { Ledger } from '../store/Ledger.js';
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

describe('a start-up against an exchange that does not answer', () => {
  /** A paper run config against a port nothing listens on; its ledger's journal rows, read after the run. */
  async function unreachable(name: string, startupWaitSec: number): Promise<{ file: string; journal: () => { kind: string; data: { reason?: string } }[] }> {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((r) => server.close(r));
    const url = `http://127.0.0.1:${port}`;
    const ledger = path.join(dir, `${name}.db`);
    const file = path.join(dir, `${name}.yaml`);
    writeFileSync(file, `mode: paper\nexchange: { base_url: "${url}", market_url: "${url}", stream_url: "ws://127.0.0.1:${port}" }\nstrategies:\n  - { name: e, plugin: ${JSON.stringify(echo)}, symbols: [BTC_IDR] }\nstorage: { path: ${JSON.stringify(ledger)} }\nrun: { startupWaitSec: ${startupWaitSec} }\nlogging: { level: info }\n`);
    const journal = (): { kind: string; data: { reason?: string } }[] => {
      const l = Ledger.open(ledger);
      try {
        return ['start', 'stop'].flatMap((kind) => l.journalEntries(kind).map((e) => ({ kind, data: e.data as { reason?: string } })));
      } finally {
        l.close();
      }
    };
    return { file, journal };
  }

  it('a SIGINT while it waits for the exchange ends the run at once, exit 0, its stop journalled', async () => {
    const { file, journal } = await unreachable('sigint-startup', 300);
    let out = '';
    let logs = '';
    const logStream = new Writable({ write: (c: Buffer, _e, cb) => ((logs += c.toString()), cb()) });
    const io = { stdout: (t: string) => void (out += t), stderr: () => undefined, env: {} };
    const done = runCommand([file], io, logStream);
    await vi.waitFor(() => expect(logs).toContain('failed for now; asking again'), { timeout: 10_000 });
    process.emit('SIGINT', 'SIGINT');
    // Without the stop reaching the start-up's waits, it would wait out run.startupWaitSec (300 s).
    expect(await done).toBe(0);
    expect(out).toMatch(/run stopped \(signal SIGINT\) during start-up, while server time was failing: nothing traded/);
    expect(journal()).toEqual([
      { kind: 'start', data: expect.objectContaining({ mode: 'paper' }) },
      { kind: 'stop', data: { reason: 'signal SIGINT during start-up, while server time was failing' } },
    ]);
  });

  it('a start-up that fails journals its stop, so the ledger does not show the run as killed', async () => {
    const { file, journal } = await unreachable('failed-startup', 0);
    const io = { stdout: () => undefined, stderr: () => undefined, env: {} };
    const err = await runCommand([file], io, new Writable({ write: (_c, _e, cb) => cb() })).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^could not start: server time still failing/);
    expect(journal().map((j) => [j.kind, j.data.reason])).toEqual([
      ['start', undefined],
      ['stop', (err as Error).message],
    ]);
  });
});
