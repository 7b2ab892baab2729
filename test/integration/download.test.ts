/**
 * `kancil download` against the sandbox over 127.0.0.1: klines into a kline CSV and aggregate
 * trades into a recording, over several pages, resumed after an interruption with the same bytes
 * a one-shot download writes, and read back by the backtester's readers.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('writes no blank line and no header-only file; --exchange takes the sandbox JSON line; --config-out writes a config that runs', async () => {
    const urls = path.join(dir, 'sandbox.json');
    writeFileSync(urls, `${JSON.stringify(sbx.urls)}\n`);
    const run = async (args: string[]): Promise<{ code: number; out: string; err: string }> => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await command.run([...args, '--exchange', urls, '--quiet'], { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {} });
      return { code, out: out.join(''), err: err.join('') };
    };
    // Aggregate trades: a header line and then one trade a line, none blank.
    const aggs = path.join(dir, 'plain.rec');
    const cfgFile = path.join(dir, 'agg-backtest.yaml');
    const r = await run(['aggTrades', '--symbol', 'BTC_USDT', '--from', new Date(T0).toISOString(), '--to', mid, '--out', aggs, '--config-out', cfgFile]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = readFileSync(aggs, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.filter((l) => l.trim() === '')).toEqual([]);
    expect(lines[0]).toMatch(/^# /);
    expect(lines).toHaveLength(1 + 1200);
    // A span with no trade writes no file at all (not a header alone).
    const none = path.join(dir, 'none.rec');
    expect((await run(['aggTrades', '--symbol', 'BTC_USDT', '--from', '2020-01-01', '--to', '2020-01-02', '--out', none])).code).toBe(0);
    expect(existsSync(none)).toBe(false);
    // The written configs run as they are: on bars built from the aggregate trades, and on the candles.
    const { command: backtest } = await import('../../src/cli/backtest.js');
    const bt = async (file: string): Promise<{ code: number; out: string; err: string }> => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await backtest.run([file, '--quiet', '--out', path.join(dir, `out-${path.basename(file)}`)], { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {} });
      return { code, out: out.join(''), err: err.join('') };
    };
    const a = await bt(cfgFile);
    expect(a.err).toBe('');
    expect(a.code).toBe(0);
    const aggResult = JSON.parse(readFileSync(path.join(dir, 'out-agg-backtest.yaml/result.json'), 'utf8')) as { bars: Record<string, unknown[]>; strategies: { sma: { orders: number } } };
    expect(aggResult.bars.BTC_USDT?.length).toBeGreaterThan(1000);
    // Aggregate trades carry no order book: the summary says why no order went out.
    expect(a.out).toMatch(/refused: BOOK_NOT_READY/);
    const kcfg = path.join(dir, 'k-backtest.yaml');
    expect((await run(['klines', '--symbol', 'BTC_USDT', '--from', new Date(T0).toISOString(), '--to', end, '--out', path.join(dir, 'k.csv.gz'), '--config-out', kcfg])).code).toBe(0);
    const k = await bt(kcfg);
    expect(k.err).toBe('');
    expect(k.code).toBe(0);
    const kResult = JSON.parse(readFileSync(path.join(dir, 'out-k-backtest.yaml/result.json'), 'utf8')) as { strategies: { sma: { trades: number } } };
    expect(kResult.strategies.sma.trades).toBeGreaterThan(0);
  }, 120_000);

  it('a candle still forming by the exchange clock is not written, however far ahead the local clock is', async () => {
    // An exchange whose clock is 10 minutes behind ours: by our clock its current minute closed long ago.
    const skew = 600_000;
    const behind = await startSandbox(testSandboxConfig(), { quiet: true, clock: { now: () => Date.now() - skew } });
    try {
      const serverNow = Date.now() - skew;
      const minute = Math.floor(serverNow / 60_000) * 60_000;
      behind.state.market.record([
        { type: 'trade' as const, symbol: 'BTC_USDT', id: 1, price: '60000', qty: '0.01', buyerOrderId: '2', sellerOrderId: '1', isBuyerMaker: false, time: minute - 60_000 + 1_000 },
        { type: 'trade' as const, symbol: 'BTC_USDT', id: 2, price: '60001', qty: '0.01', buyerOrderId: '3', sellerOrderId: '1', isBuyerMaker: false, time: Math.max(minute, serverNow - 1_000) },
      ]);
      const out = path.join(dir, 'forming.csv');
      const err: string[] = [];
      const code = await command.run(['klines', '--symbol', 'BTC_USDT', '--from', new Date(minute - 60_000).toISOString(), '--to', new Date(minute + 60_000).toISOString(), '--out', out, '--base-url', behind.urls.base_url, '--market-url', behind.urls.market_url, '--quiet'], { stdout: () => undefined, stderr: (t) => err.push(t), env: {} });
      expect(err.join('')).toBe('');
      expect(code).toBe(0);
      // The closed minute only; the forming one is fetched on the next run, whole.
      expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => Number(l.split(',')[0]))).toEqual([minute - 60_000]);
    } finally {
      await behind.stop();
    }
  });

  it('a file without hosts given to --exchange is named', async () => {
    const bad = path.join(dir, 'nohosts.yaml');
    writeFileSync(bad, 'mode: paper\n');
    const { runCli } = await import('../../src/cli/main.js');
    const err: string[] = [];
    const code = await runCli(['download', 'klines', '--symbol', 'BTC_USDT', '--from', '2024-08-01', '--to', '2024-08-02', '--exchange', bad], { stdout: () => undefined, stderr: (t) => err.push(t), env: {} });
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/--exchange=".*nohosts\.yaml": has no base_url/);
  });

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
