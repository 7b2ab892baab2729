/**
 * A paper run (`npm start`'s configuration, sandbox in-process) under hostile frames: 5 KB of `[`
 * sent to its sandbox is answered and the run trades on; when the sandbox's own code throws anyway
 * (a fault injected through the admin endpoint), the run stops in order: stop row with the
 * reason, no order left open, the summary printed, exit 1.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parse, stringify } from 'yaml';
import { runCommand } from '../../src/cli/run.js';
import { Ledger } from '../../src/store/Ledger.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-sbxfail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Log lines as they come, with a wait for the first one that matches. */
class LogWatch extends Writable {
  readonly lines: string[] = [];
  #waiters: (() => void)[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.lines.push(...chunk.toString().split('\n').filter((l) => l !== ''));
    for (const w of this.#waiters.splice(0)) w();
    cb();
  }
  async first(pred: (line: string) => boolean): Promise<string> {
    for (;;) {
      const hit = this.lines.find(pred);
      if (hit !== undefined) return hit;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }
}

function reply(url: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('error', reject);
    ws.once('open', () => ws.send(text));
    ws.once('message', (d: Buffer) => {
      ws.terminate();
      resolve(d.toString());
    });
  });
}

describe('a paper run and its in-process sandbox', () => {
  it('survives a hostile frame, and stops in order when the sandbox fails', async () => {
    const doc = parse(readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'paper.yaml');
    const db = path.join(dir, 'paper.db');
    writeFileSync(file, stringify({ ...doc, sandbox: { config: path.join(repoRoot, 'config/paper-sandbox.yaml') }, storage: { path: db }, logging: { level: 'info' }, console: { port: 0 } }));
    const logs = new LogWatch();
    let out = '';
    const done = runCommand([file, '--duration', '600'], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: {} }, logs);

    const started = JSON.parse(await logs.first((l) => l.includes('in-process sandbox started'))) as { urls: { stream_url: string; admin_url: string } };
    // A status line with resting orders: the run is trading.
    await logs.first((l) => /"openOrders":[1-9]/.test(l));
    expect(await reply(`${started.urls.stream_url}/ws`, '['.repeat(5_000))).toBe('{"code":3,"msg":"Invalid JSON: recursion limit exceeded at line 1 column 128"}');
    const crash = await fetch(`${started.urls.admin_url}/faults/crash`, { method: 'POST', body: '{}' });
    expect(crash.status).toBe(200);

    const code = await done;
    expect(out).toMatch(/run stopped \(sandbox failed in stream housekeeping: injected fault/);
    expect(code, out).toBe(1);
    const ledger = Ledger.open(db);
    try {
      expect(ledger.countJournal('stop')).toBe(1);
      expect(ledger.openOrders()).toHaveLength(0);
    } finally {
      ledger.close();
    }
  }, 60_000);

  it('ends the wait for the books at once when the sandbox fails during start-up (exit 1)', async () => {
    // The recording's first diff comes a minute after its snapshot: the run's book cannot be ready
    // before then, so the run is still waiting for it (15 s) when the sandbox fails.
    const lines = gunzipSync(readFileSync(path.join(repoRoot, 'backtest-data/btcusdt-sample.ndjson.gz'))).toString('utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"lastUpdateId"'));
    const later = lines.slice(at + 1, at + 50).map((l) => l.replace(/^(\d+)/, (t) => String(BigInt(t) + 60_000_000_000n)));
    const rec = path.join(dir, 'late.ndjson');
    writeFileSync(rec, `${[lines[at], ...later].join('\n')}\n`);
    const sbx = parse(readFileSync(path.join(repoRoot, 'config/paper-sandbox.yaml'), 'utf8')) as { market: { replay: { file: string } }[] };
    for (const m of sbx.market) m.replay.file = rec;
    const sbxFile = path.join(dir, 'late-sandbox.yaml');
    writeFileSync(sbxFile, stringify(sbx));
    const doc = parse(readFileSync(path.join(repoRoot, 'config/default.yaml'), 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'late.yaml');
    writeFileSync(file, stringify({ ...doc, sandbox: { config: sbxFile }, storage: { path: path.join(dir, 'late.db') }, logging: { level: 'info' }, console: { port: 0 } }));
    const logs = new LogWatch();
    let out = '';
    const done = runCommand([file, '--duration', '600'], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: {} }, logs);
    const started = JSON.parse(await logs.first((l) => l.includes('in-process sandbox started'))) as { urls: { admin_url: string } };
    expect((await fetch(`${started.urls.admin_url}/faults/crash`, { method: 'POST', body: '{}' })).status).toBe(200);
    const code = await done;
    expect(out).toMatch(/run stopped \(sandbox failed in stream housekeeping: injected fault.*\) during start-up, while waiting for the order books: nothing traded/);
    // Not after the 15 s wait: the run never started without its books.
    expect(logs.lines.join('\n')).not.toMatch(/starting before every book is ready/);
    expect(code, out).toBe(1);
  }, 60_000);
});
