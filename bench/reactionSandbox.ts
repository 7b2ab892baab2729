/**
 * The exchange side of bench/reaction.bench.ts, in its own process so that its work (matching,
 * fan-out) does not sit on the measured bot's event loop. Starts a sandbox with BTC_USDT and no
 * market activity, prints its URLs as one JSON line, then makes public trades on command (stdin
 * lines `<ticks per second> <fills per second>`): ticks are buyer-aggressor trades at 60000 (the
 * strategy answers each), fills are seller-aggressor trades at 59000, which fill the strategy's
 * resting bid there (the sandbox's own engine live, the local simulator on paper). `0 0` pauses.
 */
import { Decimal } from '../src/core/index.js';
import { startSandbox } from '../src/sandbox/index.js';
import { testSandboxConfig } from '../src/sandbox/test-config.js';

/** Price of the trades the strategy answers. */
export const TICK_PRICE = '60000';
/** Price of the trades that fill the strategy's resting bid. */
export const FILL_PRICE = '59000';

const sbx = await startSandbox(
  testSandboxConfig((d) => {
    d.limits = { requestWeight: [{ intervalNum: 1, intervalLetter: 'M', limit: 100_000_000 }], orders: [{ intervalNum: 1, intervalLetter: 'D', limit: 100_000_000 }] };
    for (const s of d.symbols) s.filters = (s.filters ?? []).filter((f) => f.filterType !== 'MAX_NUM_ORDERS');
    d.exchangeFilters = {};
    d.market = [];
  }),
);
// A book for the bot to follow: asks above the trades, bids below the resting bid; one diff every
// 100 ms keeps the depth stream moving (a book that never gets a diff never syncs).
const level = (price: string, qty: string) => ({ price: new Decimal(price), qty: new Decimal(qty) });
sbx.state.exec((e, t) => e.applyDepthSnapshot('BTC_USDT', { bids: [level('58000', '1')], asks: [level('61000', '1')] }, t));
let diffs = 0;
const depth = setInterval(() => {
  diffs++;
  sbx.state.exec((e, t) => e.applyDepthDiff('BTC_USDT', { bids: [level('58000', String(1 + (diffs % 7)))], asks: [level('61000', String(1 + (diffs % 5)))] }, t));
}, 100);
process.stdout.write(`${JSON.stringify(sbx.urls)}\n`);

const tick = { price: new Decimal(TICK_PRICE), qty: new Decimal('0.001'), isBuyerMaker: false };
const fill = { price: new Decimal(FILL_PRICE), qty: new Decimal('0.001'), isBuyerMaker: true };
/** Trades per 1 ms step, as fractions carried over so any rate comes out exact on average. */
let tickRate = 0;
let fillRate = 0;
let tickDebt = 0;
let fillDebt = 0;
let last = performance.now();

const timer = setInterval(() => {
  const now = performance.now();
  const dt = (now - last) / 1000;
  last = now;
  tickDebt += tickRate * dt;
  fillDebt += fillRate * dt;
  const ticks = Math.floor(tickDebt);
  const fills = Math.floor(fillDebt);
  tickDebt -= ticks;
  fillDebt -= fills;
  if (ticks + fills === 0) return;
  sbx.state.exec((e, t) => {
    for (let i = 0; i < ticks; i++) e.applyTrade('BTC_USDT', tick, t);
    for (let i = 0; i < fills; i++) e.applyTrade('BTC_USDT', fill, t);
  });
}, 1);

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  input += chunk;
  for (let nl = input.indexOf('\n'); nl >= 0; nl = input.indexOf('\n')) {
    const [t, f] = input.slice(0, nl).trim().split(/\s+/).map(Number);
    input = input.slice(nl + 1);
    tickRate = Number.isFinite(t) ? (t as number) : 0;
    fillRate = Number.isFinite(f) ? (f as number) : 0;
    tickDebt = 0;
    fillDebt = 0;
    last = performance.now();
    process.stdout.write('ok\n');
  }
});
process.stdin.on('end', () => {
  clearInterval(timer);
  clearInterval(depth);
  void sbx.stop().then(() => process.exit(0));
});
