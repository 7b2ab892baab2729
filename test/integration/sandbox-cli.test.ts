/**
 * `kancil sandbox`: in-process (one JSON line with every address and the accounts, clean stop)
 * and as a child process started the way a user would (exits 0 on SIGTERM). Runs the default
 * config/sandbox.yaml, which replays the bundled recording: nothing depends on ../shared.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { sandboxCommand } from '../../src/sandbox/index.js';
import { testSandboxDocument } from '../../src/sandbox/test-config.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const URL_KEYS = ['base_url', 'market_url', 'depth_url', 'stream_url', 'stream_url_next', 'stream_url_new', 'ws_api_url', 'legacy_base_url', 'admin_url'];

describe('kancil sandbox', () => {
  it('prints every address and the accounts once ready, serves them, stops cleanly', async () => {
    const out: string[] = [];
    const ctl = new AbortController();
    let ready: (line: string) => void = () => undefined;
    const firstLine = new Promise<string>((r) => (ready = r));
    // A Ctrl-C sent on reading the ready line must find the sandbox's own listener, not Node's default exit.
    const sigintListeners: number[] = [];
    const io = { stdout: (t: string) => (out.push(t), sigintListeners.push(process.listenerCount('SIGINT')), ready(t)), stderr: () => undefined, env: {} };
    const run = sandboxCommand.run(['--config', path.join(repoRoot, 'config/sandbox.yaml')], io, ctl.signal);
    const info = JSON.parse(await firstLine) as Record<string, unknown>;
    for (const k of URL_KEYS) expect(typeof info[k]).toBe('string');
    expect(info.ws_api_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws-api\/v3$/);
    expect(info.accounts).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'alice', apiKey: expect.any(String), secret: expect.any(String) })]));
    const r = await fetch(`${info.base_url as string}/open/v1/common/time`);
    expect(r.status).toBe(200);
    const depth = (await (await fetch(`${info.market_url as string}/api/v3/depth?symbol=BTCUSDT&limit=5`)).json()) as { bids: unknown[] };
    expect(depth.bids.length).toBe(5);
    ctl.abort();
    expect(await run).toBe(0);
    expect(out).toHaveLength(1);
    expect(sigintListeners[0]).toBeGreaterThan(0);
  });

  it('refuses to bind a non-loopback host without server.exposed, and warns loudly with it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kancil-sbx-'));
    try {
      const file = path.join(dir, 'sbx.yaml');
      const doc = { ...testSandboxDocument(), server: { host: '0.0.0.0' } };
      writeFileSync(file, stringify(doc));
      const io = { stdout: () => undefined, stderr: () => undefined, env: {} };
      await expect(sandboxCommand.run(['--config', file], io)).rejects.toThrow(/server\.host="0\.0\.0\.0".*server\.exposed: true/);
      writeFileSync(file, stringify({ ...doc, server: { host: '0.0.0.0', exposed: true } }));
      const err: string[] = [];
      const ctl = new AbortController();
      let ready: () => void = () => undefined;
      const started = new Promise<void>((r) => (ready = r));
      const run = sandboxCommand.run(['--config', file], { stdout: () => ready(), stderr: (t) => err.push(t), env: {} }, ctl.signal);
      await started;
      ctl.abort();
      expect(await run).toBe(0);
      expect(err.join('')).toMatch(/WARNING: listening on 0\.0\.0\.0/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--help prints usage', async () => {
    const out: string[] = [];
    expect(await sandboxCommand.run(['--help'], { stdout: (t) => out.push(t), stderr: () => undefined, env: {} })).toBe(0);
    expect(out.join('')).toContain('--config');
  });

  it('as a process: one JSON line on stdout, exit 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', "const m = await import('./src/sandbox/cli.ts'); process.exitCode = await m.sandboxCommand.run(['--config','config/sandbox.yaml'], { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), env: process.env });"], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const i = stdout.indexOf('\n');
        if (i >= 0) resolve(stdout.slice(0, i));
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const info = JSON.parse(line) as Record<string, string>;
    expect((await fetch(`${info.legacy_base_url}/v1/rates/tickers`)).status).toBe(200);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  }, 30_000);
});
