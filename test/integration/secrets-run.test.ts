/**
 * Secrets by value, everywhere a run writes: a real `kancil run` process (paper against its
 * in-process sandbox, console on, notifications to a loopback webhook and a fake Telegram API)
 * whose plugin logs every secret of the environment and throws them. Every byte the run wrote
 * (stdout, stderr, the ledger's files, the console's JSON and event-stream answers, the bodies of
 * every notification) is searched for each secret value in each spelling: none may appear.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

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
    const db = path.join(dir, 'run.db');
    const file = path.join(dir, 'run.yaml');
    writeFileSync(
      file,
      stringify({
        mode: 'paper',
        name: 'leak',
        sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') },
        strategies: [{ name: 'leaker', plugin: path.join(repoRoot, 'test/integration/secret-leak-plugin.ts'), symbols: ['BTC_USDT'], budget: { USDT: '1000' }, params: {} }],
        storage: { path: db },
        run: { timerMs: 300, statusIntervalSec: 1 },
        logging: { level: 'info' },
        console: { port: 0, notify: { webhook: true, telegram: { chatId: 42, baseUrl: telegram.url } } },
      }),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'run', file, '--duration', '120', '--console'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...secrets },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let onOut: () => void = () => undefined;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      onOut();
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const until = async (pred: () => boolean): Promise<void> => {
      while (!pred()) await new Promise<void>((resolve) => (onOut = resolve));
    };

    // The console, once the plugin has thrown (its failure is in the journal, the feed and the log tail).
    await until(() => /console: (http:\/\/\S+)\//.test(stdout) && stdout.includes('strategy blew up'));
    const base = /console: (http:\/\/\S+)\//.exec(stdout)?.[1] as string;
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
    while (child.exitCode === null && !(notified() && stdout.includes('"msg":"status"'))) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGTERM');
    const code = await exited;
    expect(code, stdout + stderr).not.toBe(null);
    const ledgerBytes = readdirSync(dir)
      .filter((f) => f.startsWith('run.db'))
      .map((f) => readFileSync(path.join(dir, f)).toString('latin1'))
      .join('\n');
    const notifications = [...hook.bodies, ...telegram.bodies].join('\n');
    // Teeth: each channel did carry what the plugin tried to leak, scrubbed.
    expect(stdout).toContain('[redacted]');
    expect(ledgerBytes).toContain('strategyFailed');
    expect(answers.join('\n')).toContain('strategy blew up');
    expect(notifications).toContain('strategy blew up');
    expect(telegram.bodies.length).toBeGreaterThan(0);
    const everything: Record<string, string> = { stdout, stderr, ledger: ledgerBytes, console: answers.join('\n'), notifications };
    const values = [...Object.values(secrets), hookPath];
    const hits: string[] = [];
    for (const [where, text] of Object.entries(everything)) {
      for (const v of values) for (const spelling of [v, JSON.stringify(v).slice(1, -1), encodeURIComponent(v)]) if (text.includes(spelling)) hits.push(`${where}: ${spelling}`);
    }
    expect(hits).toEqual([]);
  }, 90_000);

  it('are scrubbed from the stack of an error nothing caught, and the process still exits 1', async () => {
    const key = word('crashkey');
    const file = path.join(dir, 'crash.yaml');
    writeFileSync(
      file,
      stringify({
        mode: 'paper',
        name: 'crash',
        sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') },
        strategies: [{ name: 'crasher', plugin: path.join(repoRoot, 'test/integration/secret-crash-plugin.ts'), symbols: ['BTC_USDT'], budget: { USDT: '1000' }, params: {} }],
        storage: { path: path.join(dir, 'crash.db') },
        logging: { level: 'info' },
      }),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), 'run', file, '--duration', '30'], { cwd: repoRoot, env: { PATH: process.env.PATH, HOME: process.env.HOME, KANCIL_API_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(out).toContain('plugin crashed with key [redacted]');
    expect(out).not.toContain(key);
    expect(code).toBe(1);
  }, 60_000);
});
