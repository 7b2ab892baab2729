/** The recorder end to end: frames verbatim, snapshots, rotation, and a flush on SIGINT. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { RecordConfigSchema } from '../../src/record/config.js';
import { type RecordedItem, readRecording } from '../../src/record/reader.js';
import { Recorder } from '../../src/record/recorder.js';
import { FakeStreamServer, tradePayload, waitFor } from '../support-stream/fake-stream-server.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const silent = pino({ level: 'silent' });

async function readAll(files: string[]): Promise<RecordedItem[]> {
  const out: RecordedItem[] = [];
  for await (const it of readRecording(files, { onMalformed: (e) => { throw e; } })) out.push(it);
  return out;
}

describe('recorder', () => {
  let server: FakeStreamServer;
  let dir: string;
  beforeEach(async () => {
    server = await FakeStreamServer.start();
    dir = mkdtempSync(path.join(tmpdir(), 'kancil-rec-'));
  });
  afterEach(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records every frame with a snapshot in every rotated file', async () => {
    const cfg = RecordConfigSchema.parse({
      out: dir,
      urls: { base_url: 'http://127.0.0.1:1', market_url: 'http://127.0.0.1:1', depth_url: 'http://127.0.0.1:1', stream_url: server.url },
      symbols: [{ symbol: 'BTC_IDR', type: 1 }],
      streams: ['trade', 'depth@100ms'],
      snapshot: { everyMs: 0, limit: 1000 },
      rotate: { maxBytes: 4000, maxMs: 3_600_000 },
    });
    let lastUpdateId = 0;
    const rec = new Recorder(cfg, { logger: silent, snapshots: { depth: async () => ({ lastUpdateId: ++lastUpdateId, bids: [{ price: new Decimal('100.5'), qty: new Decimal('1') }], asks: [] }) } });
    rec.start();
    await waitFor(() => server.open().length === 1, 5000, 'connect');
    expect(server.open()[0]?.path).toBe('/stream?streams=btcidr@trade/btcidr@depth@100ms');
    // Paced like a live stream: a burst arriving in one socket read is handled in one task, and a
    // file whose snapshot answer lags more than twice the size limit is closed without it.
    for (let i = 1; i <= 200; i++) {
      server.publish('btcidr@trade', tradePayload('BTCIDR', i));
      if (i % 5 === 0) await waitFor(() => rec.stats.frames === i, 5000, `frame ${i}`);
    }
    await rec.stop();
    const files = readdirSync(dir).filter((f) => f.endsWith('.rec.gz')).sort().map((f) => path.join(dir, f));
    expect(files.length).toBeGreaterThan(2);
    const items = await readAll(files);
    expect(items.filter((i) => i.kind === 'market').map((i) => (i.kind === 'market' && i.event.type === 'trade' ? i.event.tradeId : '-'))).toEqual(Array.from({ length: 200 }, (_, i) => String(i + 1)));
    for (const f of files) {
      const inFile = await readAll([f]);
      expect(inFile.some((i) => i.kind === 'snapshot' && i.symbol === 'BTCIDR')).toBe(true);
    }
  });

  it('kancil record flushes every buffered line on SIGINT and exits 0', async () => {
    const http = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ lastUpdateId: 7, bids: [['100.00', '1.5']], asks: [['101.00', '2']] }));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const restUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const yamlFile = path.join(dir, 'rec.yaml');
    writeFileSync(
      yamlFile,
      `out: ${JSON.stringify(dir)}\nurls:\n  base_url: ${restUrl}\n  market_url: ${restUrl}\n  depth_url: ${restUrl}\n  stream_url: ${server.url}\nsymbols:\n  - { symbol: BTC_IDR, type: 1 }\nstreams: [trade]\nstatusEveryMs: 20\n`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test/support-stream/record-child.ts'), '--config', yamlFile], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await waitFor(() => server.open().length === 1, 20_000, 'child connects');
      for (let i = 1; i <= 500; i++) server.publish('btcidr@trade', tradePayload('BTCIDR', i));
      await waitFor(() => /"frames":500\b/.test(stdout), 20_000, 'child received all frames');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await new Promise<void>((r) => http.close(() => r()));
    }
    const files = readdirSync(dir).filter((f) => f.endsWith('.rec.gz')).map((f) => path.join(dir, f));
    const items = await readAll(files);
    expect(items.filter((i) => i.kind === 'market')).toHaveLength(500);
    expect(items.find((i) => i.kind === 'snapshot')).toMatchObject({ symbol: 'BTCIDR', snapshot: { lastUpdateId: 7 } });
  });
});
