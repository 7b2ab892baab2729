/**
 * Secrets by value, everywhere a run writes: a real `kancil run` process (paper against its
 * in-process sandbox, console on, notifications to a loopback webhook and a fake Telegram API)
 * whose plugin logs every secret of the environment and throws them. Every byte the run wrote
 * (stdout and stderr read until both pipes close, every file under its storage directory and its
 * HOME, the console's JSON and event-stream answers, the bodies of every notification) is searched
 * for each secret value in each spelling: none may appear. A run that dies early fails the test at
 * once with its exit status and last output.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { childOutput } from '../support/childOutput.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-secrets-'));
const servers: http.Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/** A loopback HTTP server that records every request body and answers `reply`. */
async function receiver(reply: string): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

/** A run as a child process, every byte it wrote kept, and waits that end when it does. */
interface Watched {
  stdout(): string;
  stderr(): string;
  /** Resolves when `pred` holds (checked on each output and every 50 ms); rejects at once if the run exits first. */
  until(pred: () => boolean, what: string): Promise<void>;
  /** Resolves with the exit status once the run exited and both pipes closed (no byte left unread); rejects after `ms`. */
  closed(ms: number): Promise<string>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Keeps stdout and stderr until `close` (after `exit`, bytes may still sit in the pipes: a leak
 * printed last would be missed), so the search covers all of them.
 */
function watch(child: ChildProcessByStdio<null, Readable, Readable>): Watched {
  const output = childOutput(child, 'the run');
  let exited: string | undefined;
  let wake: () => void = () => undefined;
  output.onChunk(() => wake());
  const status = (code: number | null, signal: NodeJS.Signals | null): string => (code === null ? `killed by ${signal}` : `exit ${code}`);
  child.on('exit', (code, signal) => ((exited = status(code, signal)), wake()));
  const closing = output.closed.then((end) => status(end.code, end.signal));
  const tail = (): string => `--- stdout (end) ---\n${output.stdout().slice(-3000)}\n--- stderr (end) ---\n${output.stderr().slice(-3000)}`;
  const closed = async (ms: number): Promise<string> => {
    const timeout = sleep(ms).then(() => undefined);
    const s = await Promise.race([closing, timeout]);
    if (s === undefined) throw new Error(`the run did not end within ${ms} ms of being asked to (${exited ?? 'still running'})\n${tail()}`);
    return s;
  };
  const until = async (pred: () => boolean, what: string): Promise<void> => {
    while (!pred()) {
      if (exited !== undefined) {
        const s = await closed(2000).catch(() => exited);
        throw new Error(`the run ended (${s}) before ${what}\n${tail()}`);
      }
      await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, 50)));
    }
  };
  return { stdout: output.stdout, stderr: output.stderr, until, closed };
}

/** Every file under `root` (the ledger, its journal, anything else the run wrote), as text. */
function filesUnder(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) files[path.relative(root, path.join(e.parentPath, e.name))] = readFileSync(path.join(e.parentPath, e.name)).toString('latin1');
  }
  return files;
}

/** Where each value appears in each text, as written, JSON-escaped or URL-encoded. */
function leaks(texts: Record<string, string>, values: readonly string[]): string[] {
  const hits: string[] = [];
  for (const [where, text] of Object.entries(texts)) {
    for (const v of values) for (const spelling of [v, JSON.stringify(v).slice(1, -1), encodeURIComponent(v)]) if (text.includes(spelling)) hits.push(`${where}: ${spelling}`);
  }
  return hits;
}

const word = (prefix: string): string => `${prefix}${randomBytes(12).toString('hex')}`;

describe('secret values in everything a run writes', () => {
  it('are scrubbed from stdout, stderr, the ledger, console answers and notifications', async () => {
    const hook = await receiver('{}');
    const telegram = await receiver('{"ok":true,"result":{}}');
    const hookPath = word('hookpath');
    const secrets: Record<string, string> = {
      KANCIL_API_KEY: word('apikey'),
      KANCIL_API_SECRET: word('apisecret'),
      KANCIL_LEGACY_API_KEY: word('legacykey'),
      KANCIL_LEGACY_API_SECRET: `${word('legacy')}"/+&`,
      KANCIL_CONSOLE_TOKEN: word('consoletoken'),
      KANCIL_TELEGRAM_TOKEN: `123456:${word('tg')}`,
      KANCIL_WEBHOOK_URL: `${hook.url}/hook/${hookPath}`,
    };
    // Everything the run may write goes under one directory (HOME too), and all of it is searched.
    const runDir = path.join(dir, 'leak');
    const home = path.join(runDir, 'home');
    mkdirSync(home, { recursive: true });
    const file = path.join(dir, 'run.yaml');
    writeFileSync(
      file,
      stringify({
        mode: 'paper',
        name: 'leak',
        sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') },
        strategies: [{ name: 'leaker', plugin: path.join(repoRoot, 'test/integration/secret-leak-plugin.ts'), symbols: ['BTC_USDT'], budget: { USDT: '1000' }, params: {} }],
        storage: { path: path.join(runDir, 'run.db') },
        run: { timerMs: 300, statusIntervalSec: 1 },
        logging: { level: 'info' },
        console: { port: 0, notify: { webhook: true, telegram: { chatId: 42, baseUrl: telegram.url } } },
      }),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'run', file, '--duration', '120', '--console'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: home, ...secrets },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run = watch(child);

    // The console, once the plugin has thrown (its failure is in the journal, the feed and the log tail).
    await run.until(() => /console: (http:\/\/\S+)\//.test(run.stdout()) && run.stdout().includes('strategy blew up'), 'the console was up and the plugin had thrown');
    const base = /console: (http:\/\/\S+)\//.exec(run.stdout())?.[1] as string;
    const auth = { authorization: `Bearer ${secrets.KANCIL_CONSOLE_TOKEN}` };
    const answers: string[] = [];
    for (const p of ['/api', '/api/status', '/api/strategies', '/api/snapshot', '/api/orders', '/metrics']) {
      const r = await fetch(`${base}${p}`, { headers: auth });
      answers.push(`${p} ${r.status} ${await r.text()}`);
    }
    // The event stream: its first burst carries the snapshot with the log tail.
    const events = await fetch(`${base}/api/events`, { headers: auth });
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    let sse = '';
    while (!sse.includes('strategy blew up')) {
      const { value, done } = await reader.read();
      if (done) break;
      sse += Buffer.from(value).toString('utf8');
    }
    await reader.cancel();
    answers.push(sse);

    // Stopped (SIGTERM: the same graceful stop as a duration's end) once every channel has had its
    // chance to leak: a status line, and the failure notified on both.
    const notified = (): boolean => [hook.bodies, telegram.bodies].every((b) => b.some((x) => x.includes('strategy blew up')));
    await run.until(() => notified() && run.stdout().includes('"msg":"status"'), 'a status line and the failure notified on both channels');
    child.kill('SIGTERM');
    expect(await run.closed(30_000)).toMatch(/^exit /);
    const files = filesUnder(runDir);
    const notifications = [...hook.bodies, ...telegram.bodies].join('\n');
    // Teeth: each channel did carry what the plugin tried to leak, scrubbed.
    expect(run.stdout()).toContain('[redacted]');
    expect(Object.values(files).join('\n')).toContain('strategyFailed');
    expect(answers.join('\n')).toContain('strategy blew up');
    expect(notifications).toContain('strategy blew up');
    expect(telegram.bodies.length).toBeGreaterThan(0);
    const everything: Record<string, string> = { stdout: run.stdout(), stderr: run.stderr(), ...files, console: answers.join('\n'), notifications };
    expect(leaks(everything, [...Object.values(secrets), hookPath])).toEqual([]);
  }, 90_000);

  it('are scrubbed from the stack of an error nothing caught, and the process still exits 1', async () => {
    const key = word('crashkey');
    const runDir = path.join(dir, 'crash');
    const home = path.join(runDir, 'home');
    mkdirSync(home, { recursive: true });
    const file = path.join(dir, 'crash.yaml');
    writeFileSync(
      file,
      stringify({
        mode: 'paper',
        name: 'crash',
        sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') },
        strategies: [{ name: 'crasher', plugin: path.join(repoRoot, 'test/integration/secret-crash-plugin.ts'), symbols: ['BTC_USDT'], budget: { USDT: '1000' }, params: {} }],
        storage: { path: path.join(runDir, 'crash.db') },
        logging: { level: 'info' },
      }),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'run', file, '--duration', '30'], { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: home, KANCIL_API_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] });
    const run = watch(child);
    const status = await run.closed(45_000);
    const out = run.stdout() + run.stderr();
    expect(out).toContain('plugin crashed with key [redacted]');
    expect(leaks({ stdout: run.stdout(), stderr: run.stderr(), ...filesUnder(runDir) }, [key])).toEqual([]);
    expect(status, out).toBe('exit 1');
  }, 60_000);
});
