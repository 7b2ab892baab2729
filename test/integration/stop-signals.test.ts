/**
 * A signal sent to a process and to its group (`timeout`, systemd's control group, Ctrl-C pressed
 * twice) reaches a kancil command twice within milliseconds. The second must not kill it half-way
 * through its graceful stop: the recorder still flushes its files and exits 0, a run still stops in
 * order with its summary.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { testSandboxConfig } from '../../src/sandbox/test-config.js';
import { startKancil } from '../support/botProcess.js';
import { recordCommand } from '../../src/cli/record.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-stop-signals-'));
let sbx: RunningSandbox;

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
});
afterAll(async () => {
  await sbx.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a repeated stop signal', () => {
  it('finds the recorder still listening while it flushes its files, and it exits 0', async () => {
    const u = sbx.urls;
    const cfg = path.join(dir, 'record.yaml');
    writeFileSync(cfg, `out: ${path.join(dir, 'rec')}\nurls: { base_url: ${u.base_url}, market_url: ${u.market_url}, depth_url: ${u.depth_url}, stream_url: ${u.stream_url} }\nsymbols: [{ symbol: BTC_USDT, type: 1 }]\nstatusEveryMs: 60000\n`);
    const before = process.listenerCount('SIGINT');
    const done = recordCommand(['--config', cfg]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    process.emit('SIGINT', 'SIGINT');
    // The stop has begun (files flushing): with no listener now, a second SIGINT would kill the process.
    await Promise.resolve();
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    expect(await done).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(before);
  }, 60_000);

  it('lets a recorder process flush and exit 0 when the signal comes twice at once', async () => {
    const u = sbx.urls;
    const cfg = path.join(dir, 'record2.yaml');
    writeFileSync(cfg, `out: ${path.join(dir, 'rec2')}\nurls: { base_url: ${u.base_url}, market_url: ${u.market_url}, depth_url: ${u.depth_url}, stream_url: ${u.stream_url} }\nsymbols: [{ symbol: BTC_USDT, type: 1 }]\nstatusEveryMs: 200\n`);
    const rec = startKancil(['record', '--config', cfg]);
    try {
      expect(await rec.waitForOutput(/"recording":true/, 60_000), rec.output()).toBe(true);
      rec.child.kill('SIGINT');
      rec.child.kill('SIGINT');
      expect(await rec.exit, rec.output()).toBe(0);
      expect(rec.output()).toMatch(/recording flushed/);
    } finally {
      if (rec.alive()) rec.child.kill('SIGKILL');
    }
  }, 90_000);
});
