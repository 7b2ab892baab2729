/**
 * `kancil download` against the sandbox over 127.0.0.1: klines into a kline CSV and aggregate
 * trades into a recording, over several pages, resumed after an interruption with the same bytes
 * a one-shot download writes, and read back by the backtester's readers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../src/cli/download.js';
import { readKlineCsv } from '../../src/backtest/klineCsv.js';
import { readRecording } from '../../src/record/reader.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { testSandboxConfig } from '../../src/sandbox/test-config.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-download-'));
const T0 = Date.UTC(2024, 7, 1, 0, 0, 0);
const N = 2500;
let sbx: RunningSandbox;

beforeAll(async () => {
  sbx = await startSandbox(testSandboxConfig(), { quiet: true });
  // One trade a minute (distinct takers: one aggregate each), N minutes of history.
  sbx.state.market.record(
    Array.from({ length: N }, (_, i) => ({ type: 'trade' as const, symbol: 'BTC_USDT', id: i + 1, price: String(60_000 + (i % 97)), qty: '0.01', buyerOrderId: String(i + 10), sellerOrderId: '1', isBuyerMaker: false, time: T0 + i * 60_000 + 1_000 })),
  );
});
afterAll(async () => {
  await sbx.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function dl(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await command.run([...args, '--base-url', sbx.urls.base_url, '--market-url', sbx.urls.market_url, '--quiet'], { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {} });
  return { code, out: out.join(''), err: err.join('') };
}

const end = new Date(T0 + (N - 1) * 60_000).toISOString();
const mid = new Date(T0 + 1200 * 60_000).toISOString();

describe('kancil download (sandbox over loopback)', () => {
  it('klines: pages of 1,000 into a kline CSV the backtester reads; an interrupted download resumes to the same bytes', async () => {
    const whole = path.join(dir, 'whole.csv');
    const r = await dl(['klines', '--symbol', 'BTC_USDT', '--from', new Date(T0).toISOString(), '--to', end, '--out', whole]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ kind: 'klines', rows: N });
    const resumed = path.join(dir, 'resumed.csv.gz');
    expect((await dl(['klines', '--symbol', 'BTC_USDT', '--from', new Date(T0).toISOString(), '--to', mid, '--out', resumed])).code).toBe(0);
    const second = await dl(['klines', '--symbol', 'BTC_USDT', '--from', new Date(T0).toISOString(), '--to', end, '--out', resumed]);
    expect(JSON.parse(second.out)).toMatchObject({ rows: N - 1201 });
    const bars = [];
    for await (const k of readKlineCsv(resumed, 'BTC_USDT', '1m')) bars.push(k);
    expect(bars).toHaveLength(N);
    expect(bars.map((b) => b.openTime)).toEqual(Array.from({ length: N }, (_, i) => T0 + i * 60_000));
    const wholeBars = [];
    for await (const k of readKlineCsv(whole, 'BTC_USDT', '1m')) wholeBars.push(k);
    expect(wholeBars.map((b) => [b.openTime, b.close.toFixed(), b.volume.toFixed()])).toEqual(bars.map((b) => [b.openTime, b.close.toFixed(), b.volume.toFixed()]));
    // Run again: nothing left to fetch, nothing written twice.
    expect(JSON.parse((await dl(['klines', '--symbol', 'BTC_USDT', '--from', new Date(T0).toISOString(), '--to', end, '--out', whole])).out)).toMatchObject({ rows: 0 });
    expect(readFileSync(whole, 'utf8').trim().split('\n')).toHaveLength(N);
  }, 60_000);

  it('aggTrades: by id after the first window into a recording; resumed, every trade once, in order', async () => {
    const out = path.join(dir, 'aggs.rec.gz');
    expect((await dl(['aggTrades', '--symbol', 'BTC_USDT', '--from', new Date(T0).toISOString(), '--to', mid, '--out', out])).code).toBe(0);
    const r = await dl(['aggTrades', '--symbol', 'BTC_USDT', '--from', new Date(T0).toISOString(), '--to', end, '--out', out]);
    expect(r.code).toBe(0);
    const ids: string[] = [];
    for await (const it of readRecording(out)) if (it.kind === 'market' && it.event.type === 'aggTrade') ids.push(it.event.aggId);
    // The last trade is a second after --to: not in the span.
    expect(ids).toEqual(Array.from({ length: N - 1 }, (_, i) => String(i + 1)));
  }, 60_000);

  it('bad arguments print what is wrong and exit 2', async () => {
    for (const [args, want] of [
      [['candles', '--symbol', 'BTC_USDT', '--from', '2024-08-01', '--to', '2024-08-02'], /expected klines or aggTrades/],
      [['klines', '--symbol', 'btc', '--from', '2024-08-01', '--to', '2024-08-02'], /--symbol="btc": expected BASE_QUOTE/],
      [['klines', '--symbol', 'BTC_USDT', '--from', '2024-08-03', '--to', '2024-08-02'], /--from="2024-08-03": is after --to/],
      [['klines', '--symbol', 'BTC_USDT', '--from', 'yesterday', '--to', '2024-08-02'], /--from="yesterday": expected ISO 8601/],
      [['klines', '--symbol', 'BTC_USDT', '--from', '2024-08-01', '--to', '2024-08-02', '--interval', '7m'], /--interval="7m": not a kline interval/],
    ] as const) {
      const { runCli } = await import('../../src/cli/main.js');
      const err: string[] = [];
      const code = await runCli(['download', ...args], { stdout: () => undefined, stderr: (t) => err.push(t), env: {} });
      expect(code, args.join(' ')).toBe(2);
      expect(err.join(''), args.join(' ')).toMatch(want);
    }
  });
});
