/**
 * Fill realism on the bundled recording: a probe that market-buys right after each buyer-aggressor
 * trade must never be filled below that trade's price (the asks below it were taken by the trade
 * it reacted to, or by earlier ones). It holds at the default settings, at latency 0 too (the buy
 * reaches the engine in the same millisecond as the trade); the anchor-compatible fill model
 * (`fillModel: hftbacktest`, which leaves the replayed book unchanged after a trade) breaks it on
 * the same data, which shows the probe can fail.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/Backtest.js';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseBacktestConfig } from '../../src/backtest/config.js';
import { Decimal } from '../../src/core/decimal.js';
import { defineStrategy } from '../../src/strategy/types.js';
import { z } from 'zod';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** What the probe saw: the trade price each buy reacted to, and its fills. */
interface ProbeLog {
  reacted: Map<string, Decimal>;
  fills: { clientId: string; price: Decimal }[];
}

/** Market-buys 0.0005 BTC after every buyer-aggressor trade of at least 0.01 BTC, at most one order in flight. */
function probe(log: ProbeLog) {
  return defineStrategy({
    name: 'aggressor-chaser',
    description: 'market-buys after each buyer-aggressor trade (fill-realism probe)',
    params: z.object({}),
    marketEvents: ['trade'],
    create(ctx) {
      let sells = 0;
      return {
        onEvent(e) {
          if (e.type === 'fill') log.fills.push({ clientId: e.clientId, price: e.price });
          if (e.type !== 'trade' || e.isBuyerMaker || e.qty.lt('0.01')) return;
          const id = ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'MARKET', quantity: new Decimal('0.0005') });
          log.reacted.set(id, e.price);
          // Sell the position back now and then so the budget lasts.
          if (++sells % 20 === 0) ctx.place({ symbol: 'BTC_USDT', side: 'SELL', orderType: 'MARKET', quantity: new Decimal('0.01') });
        },
      };
    },
  });
}

/** Runs the probe on config/market-maker.yaml's recording with its backtest section's latency, fees and output replaced by `backtest` (absent: the schema's defaults). */
async function run(backtest: Record<string, unknown>): Promise<{ buys: number; below: string[] }> {
  const file = path.join(repoRoot, 'config/market-maker.yaml');
  const doc = parse(readFileSync(file, 'utf8')) as { strategies: Record<string, unknown>[]; backtest: Record<string, unknown> };
  const { latency: _l, fees: _f, output: _o, ...keep } = doc.backtest;
  const cfg = parseBacktestConfig(
    { ...doc, strategies: [{ ...doc.strategies[0], name: 'probe', plugin: 'probe', params: {}, budget: { USDT: '100000', BTC: '0' } }], backtest: { ...keep, ...backtest } },
    file,
  );
  const log: ProbeLog = { reacted: new Map(), fills: [] };
  await runBacktest(cfg, { plugins: { probe: probe(log) }, writeOutput: false });
  const below: string[] = [];
  let buys = 0;
  for (const f of log.fills) {
    const p = log.reacted.get(f.clientId);
    if (p === undefined) continue;
    buys++;
    if (f.price.lt(p)) below.push(`${f.clientId} filled ${f.price.toFixed()} after a buy at ${p.toFixed()}`);
  }
  return { buys, below };
}

describe('fill-realism probe over the bundled recording', () => {
  it('a market buy after a buyer-aggressor trade is never filled below that trade, at the default settings and at latency 0', async () => {
    const defaults = await run({});
    const zero = await run({ latency: { entryMs: 0, cancelMs: 0, ackMs: 0 } });
    for (const r of [defaults, zero]) {
      expect(r.buys).toBeGreaterThan(20);
      expect(r.below).toEqual([]);
    }
    // The anchor model lets same-millisecond buys take asks a trade already took.
    const anchor = await run({ latency: { entryMs: 0, cancelMs: 0, ackMs: 0 }, fillModel: 'hftbacktest' });
    expect(anchor.below.length).toBeGreaterThan(0);
  }, 120_000);
});
