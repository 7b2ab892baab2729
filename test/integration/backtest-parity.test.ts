/**
 * Backtest/paper parity. The trade-fader strategy (its decisions depend only on trade content) runs
 * twice over the bundled BTCUSDT recording:
 *  - paper: `kancil run` in paper mode against an in-process sandbox that replays the recording at
 *    2x speed; market data over loopback WebSockets, fills from the paper matching engine, wall clock;
 *  - backtest: the same recording replayed on the virtual clock through the same host, risk gate
 *    and SimVenue.
 * Both with zero venue latency and the same fees.
 *
 * What must agree (documented tolerance):
 *  - intents: the paper run's place intents (side, price, quantity), in order, equal a contiguous
 *    run of the backtest's intents (paper joins the replay a moment after it starts, so it may miss
 *    the first ones);
 *  - timing: the recording-time gap between each paper intent and the first aligned one matches the
 *    backtest's within 1,500 ms (wall-clock scheduling on a loaded machine; 2x speed halves real gaps);
 *  - fills, for orders placed more than 3 s of recording time before the paper run ended: every
 *    fill of either run is on the order's side at its limit price or better; at least 75 % of the
 *    orders end with the same filled quantity in both runs; the total filled quantity differs by at
 *    most 25 %;
 *  - fees, exactly: every fill of either run is charged the configured rate of its side of the book
 *    (maker or taker) on what it received (a buy's base quantity, a sell's quote amount), in that
 *    asset; an order filled at the same prices and sizes in both runs has the same fills' fees and
 *    maker flags. A fee model that differs between the modes (a rate, the asset, maker/taker) fails;
 *  - execution, not only quantity: at least 25 % of the orders are filled at exactly the same prices
 *    and sizes in both runs. Measured: 7 of 15; with a venue latency of 100 ms (entry, cancel, ack)
 *    in the backtest only, 1 of 15, while the filled quantities still agree for 15 of 15 (a late
 *    order meets a different book and fills in other pieces), so the quantity rule alone would
 *    not notice a latency divergence and this one does.
 * Why the fills are not exact: on the wall clock, a few depth diffs can reach the paper engine
 *    between the trade that triggered an order and the order itself, so an order may meet a
 *    slightly different book (it may take at a better price instead of resting, or sit at a
 *    different queue position). Measured on this machine: 15 of 15 intents identical, 12 of 14
 *    orders with identical filled quantity, 2 that took at a better price in paper.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { prepareRun, sourcesOf } from '../../src/backtest/Backtest.js';
import { parseBacktestConfig } from '../../src/backtest/config.js';
import { Decimal } from '../../src/core/decimal.js';
import { PROJECT_ROOT as projectRoot } from '../../src/strategy/loader.js';
import { runCommand } from '../../src/cli/run.js';
import { Ledger } from '../../src/store/Ledger.js';

const SPEED = 2;
const DURATION_S = 12;
const TIMING_TOLERANCE_MS = 1500;
const PARAMS = { minQty: '0.05', quantity: '0.0002', offsetTicks: 0, tickSize: '0.01', maxOpen: 4 };
/** Fee rates of both runs (bps); a maker rate above 0 so that passive fills carry a fee to compare. */
const FEES = { makerBps: 1, takerBps: 7.5 };
const dir = mkdtempSync(path.join(tmpdir(), 'kancil-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fill as both runs are compared: exact decimal text. */
interface Fill {
  side: string;
  price: string;
  qty: string;
  fee: string;
  asset: string | null;
  maker: boolean;
}

function fillOf(f: { side: string; price: Decimal; qty: Decimal; commission: Decimal; commissionAsset: string | null; isMaker: boolean }): Fill {
  return { side: f.side, price: f.price.toFixed(), qty: f.qty.toFixed(), fee: f.commission.toFixed(), asset: f.commissionAsset, maker: f.isMaker };
}

interface Placed {
  t: number;
  clientId: string;
  key: string;
}

describe('backtest and paper produce the same intents and fills', () => {
  it('trade-fader over the bundled recording', async () => {
    // Paper: the sandbox config of `npm start`, replaying once at 2x.
    const sandboxDoc = parse(readFileSync(path.join(projectRoot, 'config/paper-sandbox.yaml'), 'utf8')) as { market: { replay: Record<string, unknown> }[] };
    for (const m of sandboxDoc.market) m.replay = { ...m.replay, file: path.join(projectRoot, 'backtest-data/btcusdt-sample.ndjson.gz'), loop: false, speed: SPEED };
    const sandboxFile = path.join(dir, 'sandbox.yaml');
    writeFileSync(sandboxFile, stringify(sandboxDoc));
    const runFile = path.join(dir, 'paper.yaml');
    writeFileSync(
      runFile,
      stringify({
        mode: 'paper',
        name: 'parity',
        sandbox: { config: sandboxFile },
        strategies: [{ name: 'fader', plugin: 'trade-fader', symbols: ['BTC_USDT'], budget: { USDT: '10000', BTC: '0.05' }, params: PARAMS }],
        risk: { mode: 'reject' },
        paper: { ...FEES, latencyMs: 0 },
        storage: { path: path.join(dir, 'paper.db') },
        run: { durationSec: DURATION_S, statusIntervalSec: 60, timerMs: 0, cancelOnShutdown: false },
        logging: { level: 'warn' },
      }),
    );
    let out = '';
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    const code = await runCommand([runFile], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: {} }, sink);
    expect(code, out).toBe(0);
    const ledger = Ledger.open(path.join(dir, 'paper.db'));
    const paperOrders = ledger.orders().sort((a, b) => a.createdAt - b.createdAt || (a.clientId < b.clientId ? -1 : 1));
    const paperFills = new Map(paperOrders.map((o) => [o.clientId, ledger.fills(o.clientId)]));
    ledger.close();
    const paper: Placed[] = paperOrders.map((o) => ({ t: o.createdAt, clientId: o.clientId, key: `${o.side} ${o.quantity?.toFixed()}@${o.price?.toFixed()}` }));
    expect(paper.length, out).toBeGreaterThan(3);

    // Backtest: the same recording, strategy, fees and (zero) latency.
    const cfg = parseBacktestConfig(
      {
        mode: 'backtest',
        name: 'parity',
        symbols: { BTC_USDT: { filters: (sandboxDoc as unknown as { symbols: { filters: unknown[] }[] }).symbols[0]?.filters } },
        strategies: [{ name: 'fader', plugin: 'trade-fader', symbols: ['BTC_USDT'], budget: { USDT: '10000', BTC: '0.05' }, params: PARAMS }],
        risk: { mode: 'reject' },
        backtest: { recordings: [{ symbol: 'BTC_USDT', files: [path.join(projectRoot, 'backtest-data/btcusdt-sample.ndjson.gz')] }], fees: FEES, balances: { USDT: '100000', BTC: '1' } },
      },
      path.join(dir, 'bt.yaml'),
    );
    const run = await prepareRun(cfg);
    const bt: Placed[] = [];
    const btFills = new Map<string, Fill[]>();
    run.bus.events$.subscribe((e) => {
      if (e.type === 'orderUpdate' && e.state === 'PENDING') bt.push({ t: e.E, clientId: e.clientId, key: `${e.side} ${e.quantity?.toFixed()}@${e.price?.toFixed()}` });
      if (e.type === 'fill') btFills.set(e.clientId, [...(btFills.get(e.clientId) ?? []), fillOf(e)]);
    });
    await run.replay.run(sourcesOf(cfg));
    run.finish();

    // Intents: contiguous match.
    const k = bt.findIndex((b, i) => paper.every((p, j) => bt[i + j]?.key === p.key));
    expect(k, `paper ${JSON.stringify(paper.map((p) => p.key))}\nbacktest ${JSON.stringify(bt.slice(0, paper.length + 10).map((b) => b.key))}`).toBeGreaterThanOrEqual(0);

    // Timing, in recording time.
    const p0 = paper[0] as Placed;
    const b0 = bt[k] as Placed;
    for (const [j, p] of paper.entries()) {
      const paperGap = (p.t - p0.t) * SPEED;
      const btGap = (bt[k + j] as Placed).t - b0.t;
      expect(Math.abs(paperGap - btGap), `intent ${j}`).toBeLessThanOrEqual(TIMING_TOLERANCE_MS);
    }

    // Fills of orders placed well before the paper run ended.
    const paperEnd = paper[paper.length - 1]?.t ?? p0.t;
    const sum = (xs: readonly { qty: string }[]) => xs.reduce((a, x) => a + Number(x.qty), 0);
    let compared = 0;
    let sameQty = 0;
    let sameFills = 0;
    let makerFees = 0;
    let paperTotal = 0;
    let btTotal = 0;
    for (const [j, p] of paper.entries()) {
      if ((paperEnd - p.t) * SPEED < 3000) continue;
      const [side, rest] = p.key.split(' ') as [string, string];
      const limit = Number(rest.split('@')[1]);
      const pf = (paperFills.get(p.clientId) ?? []).map(fillOf);
      const bf = btFills.get((bt[k + j] as Placed).clientId) ?? [];
      for (const f of [...pf, ...bf]) {
        expect(f.side).toBe(side);
        // at the limit or better
        expect(side === 'BUY' ? Number(f.price) <= limit : Number(f.price) >= limit, `fill ${JSON.stringify(f)} of ${p.key}`).toBe(true);
        // the configured rate of its side of the book, on what it received, in that asset
        const rate = new Decimal(f.maker ? FEES.makerBps : FEES.takerBps).div(10_000);
        const expected = side === 'BUY' ? { fee: new Decimal(f.qty).mul(rate).toFixed(), asset: 'BTC' } : { fee: new Decimal(f.qty).mul(f.price).mul(rate).toFixed(), asset: 'USDT' };
        expect({ fee: f.fee, asset: f.asset }, `fee of ${JSON.stringify(f)}`).toEqual(expected);
        if (f.maker && f.fee !== '0') makerFees++;
      }
      // Same fills (prices and sizes) in both runs: the same fees and maker flags.
      const shape = (xs: readonly Fill[]) => JSON.stringify(xs.map((f) => `${f.price}x${f.qty}`).sort());
      if (pf.length > 0 && shape(pf) === shape(bf)) {
        sameFills++;
        const fees = (xs: readonly Fill[]) => JSON.stringify(xs.map((f) => `${f.price}x${f.qty} ${f.fee} ${f.asset} ${f.maker}`).sort());
        expect(fees(pf), p.key).toBe(fees(bf));
      }
      compared++;
      if (Math.abs(sum(pf) - sum(bf)) < 1e-12) sameQty++;
      paperTotal += sum(pf);
      btTotal += sum(bf);
    }
    expect(compared).toBeGreaterThan(3);
    // The fee checks above had something to check: passive fills with a fee.
    expect(makerFees).toBeGreaterThan(0);
    expect(sameFills / compared, `${sameFills} of ${compared} orders filled at the same prices and sizes`).toBeGreaterThanOrEqual(0.25);
    expect(sameQty / compared, `${sameQty} of ${compared} orders with the same filled quantity`).toBeGreaterThanOrEqual(0.75);
    expect(Math.abs(paperTotal - btTotal) / Math.max(btTotal, 1e-12), `filled ${paperTotal} paper vs ${btTotal} backtest`).toBeLessThanOrEqual(0.25);
  }, 90_000);
});
