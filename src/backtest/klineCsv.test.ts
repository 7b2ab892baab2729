import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseKlineCsvLine, readKlineCsv, shiftedCsvKline } from './klineCsv.js';

const LINE = '1722470400000,64628.01000000,64670.01000000,64601.00000000,64634.01000000,36.77990000,1722470459999,2377477.74237530,3399,13.19798000,853026.66151230,0';

describe('kline CSV', () => {
  it('parses every field exactly; the event time is the bar close', () => {
    const k = parseKlineCsvLine(LINE, 'BTC_USDT', '1m')!;
    expect(k.E).toBe(1722470459999);
    expect(k.openTime).toBe(1722470400000);
    expect(k.closeTime).toBe(1722470459999);
    expect([k.open, k.high, k.low, k.close, k.volume, k.quoteVolume, k.takerBuyBaseVolume, k.takerBuyQuoteVolume].map(String)).toEqual(['64628.01', '64670.01', '64601', '64634.01', '36.7799', '2377477.7423753', '13.19798', '853026.6615123']);
    expect(k.trades).toBe(3399);
    expect(k.closed).toBe(true);
    expect(JSON.parse(JSON.stringify(k)).close).toBe('64634.01');
  });

  it('closeNumber is the nearest double of the exact close (what the indicators get)', () => {
    for (const c of ['64634.01000000', '0.10000000', '123456789.12345678', '3']) {
      const k = parseKlineCsvLine(LINE.replace('64634.01000000', c), 'BTC_USDT', '1m')!;
      expect(k.closeNumber).toBe(Number(k.close.toFixed()));
    }
  });

  it('a shifted copy moves the times and shares the decimals, parsed once', () => {
    const k = parseKlineCsvLine(LINE, 'BTC_USDT', '1m')!;
    const close = k.close;
    const s = shiftedCsvKline(k, 60_000);
    expect([s.E, s.openTime, s.closeTime]).toEqual([1722470519999, 1722470460000, 1722470519999]);
    expect(s.close).toBe(close);
    expect(s.open).toBe(k.open);
    expect(s.closeNumber).toBe(k.closeNumber);
    expect(() => shiftedCsvKline({ ...k }, 1)).toThrow(/expected a bar read by parseKlineCsvLine, got Object/);
  });

  it('converts microsecond times to ms and skips headers', () => {
    const us = LINE.replace('1722470400000', '1722470400000000').replace('1722470459999', '1722470459999999');
    expect(parseKlineCsvLine(us, 'BTC_USDT', '1m')!.closeTime).toBe(1722470459999);
    expect(parseKlineCsvLine('open_time,open,high', 'BTC_USDT', '1m')).toBeUndefined();
  });

  it('rejects a bad field at read time, naming it', () => {
    expect(() => parseKlineCsvLine(LINE.replace('64634.01000000', '64x34'), 'BTC_USDT', '1m')).toThrow(/close/);
    expect(() => parseKlineCsvLine('1,2,3', 'BTC_USDT', '1m')).toThrow(/11 columns/);
  });

  it('streams gzip files in order, counting their compressed bytes read', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-kline-'));
    try {
      const f = path.join(dir, 'k.csv.gz');
      writeFileSync(f, gzipSync(`${LINE}\n${LINE.replace('1722470400000', '1722470460000').replace('1722470459999', '1722470519999')}\n`));
      const out: number[] = [];
      const count = { bytes: 5 };
      for await (const k of readKlineCsv(f, 'BTC_USDT', '1m', count)) out.push(k.openTime);
      expect(out).toEqual([1722470400000, 1722470460000]);
      expect(count.bytes).toBe(5 + statSync(f).size);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
