/**
 * Matching engine benchmark: one generated mixed flow (60 % limit adds, 30 % cancels, 10 % market
 * orders) on one symbol, run through our MatchingEngine and through the `nodejs-order-book` package.
 * The final books must be equal before any timing counts. Reports ops/s and p99 latency for both,
 * plus our engine with every event built and delivered to a listener, then the same mix at
 * realistic depths (at most 300, 1,000 and 3,000 live orders) without events, with the events a
 * backtest subscribes to, with those and account positions (paper), and with every event (the
 * sandbox).
 * Latest figures and where the time goes: docs/performance.md.
 */
import { cpus, loadavg } from 'node:os';
import { OrderBook, Side } from 'nodejs-order-book';
import { MatchingEngine, type NewOrderRequest } from '../src/sim/index.js';
import { account, symbolInfo } from '../src/sim/fixtures.js';
import type { BenchReport } from './report.js';
import { fmtRate, fmtRatio, percentile } from './report.js';
import { mulberry32 } from '../src/core/random.js';

const SYMBOL = 'BTC_IDR';
const OPS = 400_000;
const MID = 1_000_000;
/** Live-order bounds of the realistic-depth flows (a few hundred to a few thousand resting orders). */
const REALISTIC_DEPTHS = [300, 1_000, 3_000];
const REALISTIC_OPS = 200_000;
/** historyLimit of the bounded run: ten times the largest page a history query serves. */
const HISTORY = 10_000;

/** One generated operation; prices in ticks of 1, sizes in lots of 0.00001. */
type Op = { k: 'limit'; id: number; buy: boolean; price: number; size: number } | { k: 'cancel'; id: number } | { k: 'market'; buy: boolean; size: number };


/**
 * Generates the flow: non-crossing limit adds around the mid, cancels of live orders, market
 * orders. With `maxLive`, an add that would leave more than that many orders placed and not yet
 * cancelled becomes a cancel instead, so the book stays at a realistic depth (the unbounded flow
 * grows it to ~100,000 resting orders, where the peer's linear cancel is slowest).
 */
export function generateFlow(n: number, seed = 42, maxLive = Infinity): Op[] {
  const r = mulberry32(seed);
  const ops: Op[] = [];
  const live: number[] = [];
  let next = 1;
  for (let i = 0; i < n; i++) {
    let x = r();
    if (x < 0.6 && live.length >= maxLive) x = 0.6 + x / 2;
    if (x < 0.6 || live.length === 0) {
      const buy = r() < 0.5;
      const off = 1 + Math.floor(r() * 50);
      const id = next++;
      ops.push({ k: 'limit', id, buy, price: buy ? MID - off : MID + off, size: 1 + Math.floor(r() * 100) });
      live.push(id);
    } else if (x < 0.9) {
      const j = Math.floor(r() * live.length);
      const id = live[j]!;
      live[j] = live[live.length - 1]!;
      live.pop();
      ops.push({ k: 'cancel', id });
    } else {
      ops.push({ k: 'market', buy: r() < 0.5, size: 1 + Math.floor(r() * 200) });
    }
  }
  return ops;
}

const lots = (n: number): string => (n / 100000).toFixed(5);

type Req = NewOrderRequest | undefined;

/**
 * Which events a listener subscribes to: none (no listener), `backtest` (scaled, transient
 * executionReports only: what SimVenue subscribes to in a backtest), `paper` (the same and account
 * positions: SimVenue in paper), `all` (every event with wire reports: what the sandbox's buffer
 * builds).
 */
type Listening = 'none' | 'backtest' | 'paper' | 'all';

/** Subscribes a counting listener to `eng` as `listening` says; returns the count. */
function listen(eng: MatchingEngine, listening: Listening): () => number {
  let events = 0;
  const count = (): void => void events++;
  if (listening === 'all') eng.subscribe(count);
  else if (listening !== 'none') eng.subscribe(count, { marketData: false, accountPositions: listening === 'paper', reports: 'scaled', transientReports: true });
  return () => events;
}

/**
 * The flow's orders as requests with wire strings, as a server receives them (undefined for
 * cancels). Rendered once per flow and shared by every engine instance, like the peer's `ops`:
 * rendered per instance, 280,000 fresh request objects were still young when the timed run began,
 * and the collector copied them during it.
 */
function renderRequests(ops: Op[]): Req[] {
  return ops.map((op) =>
    op.k === 'limit'
      ? { accountId: op.buy ? 'B' : 'S', symbol: SYMBOL, side: op.buy ? ('BUY' as const) : ('SELL' as const), type: 'LIMIT' as const, price: String(op.price), quantity: lots(op.size) }
      : op.k === 'market'
        ? { accountId: op.buy ? 'B' : 'S', symbol: SYMBOL, side: op.buy ? ('BUY' as const) : ('SELL' as const), type: 'MARKET' as const, quantity: lots(op.size) }
        : undefined,
  );
}

/** Our engine running the flow's requests (the engine parses their strings on every call). */
function ours(ops: Op[], reqs: readonly Req[], listening: Listening, historyLimit = Infinity): { run: (lat?: Float64Array) => void; book: () => Map<string, number>; events: () => number } {
  const eng = new MatchingEngine({
    symbols: [
      {
        info: symbolInfo(SYMBOL, [
          { filterType: 'PRICE_FILTER', minPrice: '1', maxPrice: '100000000', tickSize: '1' },
          { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.00001' },
          { filterType: 'NOTIONAL', minNotional: '1', maxNotional: '0', applyToMarket: false, avgPriceMins: 0 },
        ]),
      },
    ],
    // Buys and sells come from different accounts so self-trade prevention never applies (the peer has none).
    accounts: [account('B', { IDR: '1000000000000000', BTC: '0' }), account('S', { IDR: '0', BTC: '1000000000' })],
    bufferEvents: false,
    historyLimit,
  });
  const events = listen(eng, listening);
  const ids: string[] = [];
  const owner: string[] = [];
  for (const op of ops) if (op.k === 'limit') owner[op.id] = op.buy ? 'B' : 'S';
  const run = (lat?: Float64Array): void => {
    let t = 0;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const t0 = lat ? performance.now() : 0;
      if (op.k === 'cancel') {
        const id = ids[op.id];
        eng.cancelOrder({ accountId: owner[op.id]!, orderId: id ?? '0' }, t);
      } else {
        const res = eng.placeOrder(reqs[i]!, t);
        // A market order on an empty side is refused by us and ignored by the peer: the same end state.
        if (!res.ok && res.reason !== 'NO_MARKET_LIQUIDITY') throw new Error(`bench order refused: ${res.message}`);
        if (op.k === 'limit' && res.ok) ids[op.id] = res.orderId;
      }
      if (lat) lat[i] = performance.now() - t0;
      t++;
    }
  };
  const book = (): Map<string, number> => {
    const d = eng.depth(SYMBOL, 1_000_000);
    const m = new Map<string, number>();
    for (const l of d.bids) m.set(`b${l.price.toFixed()}`, Number(l.qty.mul(100000).toFixed()));
    for (const l of d.asks) m.set(`a${l.price.toFixed()}`, Number(l.qty.mul(100000).toFixed()));
    return m;
  };
  return { run, book, events };
}

function peer(ops: Op[]): { run: (lat?: Float64Array) => void; book: () => Map<string, number> } {
  const ob = new OrderBook();
  const run = (lat?: Float64Array): void => {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const t0 = lat ? performance.now() : 0;
      if (op.k === 'limit') ob.limit({ id: String(op.id), side: op.buy ? Side.BUY : Side.SELL, size: op.size, price: op.price });
      else if (op.k === 'market') ob.market({ side: op.buy ? Side.BUY : Side.SELL, size: op.size });
      else ob.cancel(String(op.id));
      if (lat) lat[i] = performance.now() - t0;
    }
  };
  const book = (): Map<string, number> => {
    const [asks, bids] = ob.depth();
    const m = new Map<string, number>();
    for (const [p, q] of bids) m.set(`b${p}`, q);
    for (const [p, q] of asks) m.set(`a${p}`, q);
    return m;
  };
  return { run, book };
}

function sameBook(a: Map<string, number>, b: Map<string, number>): string | null {
  if (a.size !== b.size) return `level counts differ: ${a.size} vs ${b.size}`;
  for (const [k, v] of a) if (b.get(k) !== v) return `level ${k}: ${v} vs ${b.get(k)}`;
  return null;
}

/** Best of three timed runs (fresh instances): ops per wall-clock second and per CPU second of this process. */
function throughput(make: () => { run: () => void }, n: number): { wall: number; cpu: number } {
  let wall = 0;
  let cpu = 0;
  for (let i = 0; i < 3; i++) {
    const x = make();
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    x.run();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    const c = process.cpuUsage(c0);
    wall = Math.max(wall, n / s);
    cpu = Math.max(cpu, n / ((c.user + c.system) / 1e6));
  }
  return { wall, cpu };
}

function p99us(make: () => { run: (lat: Float64Array) => void }, n: number): number {
  const lat = new Float64Array(n);
  make().run(lat);
  return percentile(lat, 99) * 1000;
}

/** Runs the benchmark. */
export async function run(): Promise<BenchReport> {
  const ops = generateFlow(OPS);
  const lines: string[] = [`flow: ${OPS.toLocaleString('en-US')} ops on one symbol (60 % limit, 30 % cancel, 10 % market), seed 42`];
  // Correctness first: both final books must be equal, or no timing counts.
  const reqs = renderRequests(ops);
  const o = ours(ops, reqs, 'none');
  o.run();
  const p = peer(ops);
  p.run();
  const bounded = ours(ops, reqs, 'none', HISTORY);
  bounded.run();
  const diff = sameBook(o.book(), p.book()) ?? sameBook(bounded.book(), p.book());
  if (diff !== null) return { name: 'matching engine vs nodejs-order-book', lines: [...lines, `final books differ: ${diff}`], ok: false };
  lines.push(`final books equal (${o.book().size} levels)`);
  const oursRate = throughput(() => ours(ops, reqs, 'none'), OPS);
  const boundRate = throughput(() => ours(ops, reqs, 'none', HISTORY), OPS);
  const evRate = throughput(() => ours(ops, reqs, 'all'), OPS);
  const peerRate = throughput(() => peer(ops), OPS);
  const oursP99 = p99us(() => ours(ops, reqs, 'none'), OPS);
  const peerP99 = p99us(() => peer(ops), OPS);
  const withEv = ours(ops, reqs, 'all');
  withEv.run();
  // The machine is shared: CPU-time rates show what one core does; wall-clock rates what this run got.
  lines.push(`load average ${loadavg()[0]!.toFixed(2)} on ${cpus().length} cores; rates are wall-clock (CPU-time in brackets)`);
  lines.push(`ours (no listener):        ${fmtRate(oursRate.wall)} (${fmtRate(oursRate.cpu)})  p99 ${oursP99.toFixed(2)} us`);
  lines.push(`ours (history ${HISTORY.toLocaleString('en-US')}):    ${fmtRate(boundRate.wall)} (${fmtRate(boundRate.cpu)})  ended orders and own trades kept per account`);
  lines.push(`ours (all events built):   ${fmtRate(evRate.wall)} (${fmtRate(evRate.cpu)})  ${withEv.events().toLocaleString('en-US')} events`);
  lines.push(`nodejs-order-book:         ${fmtRate(peerRate.wall)} (${fmtRate(peerRate.cpu)})  p99 ${peerP99.toFixed(2)} us`);
  lines.push(`ratio ours/peer: ${fmtRatio(oursRate.wall, peerRate.wall)} wall, ${fmtRatio(oursRate.cpu, peerRate.cpu)} CPU; with events ${fmtRatio(evRate.wall, peerRate.wall)} (goal >= 3x and >= 1,000,000/s)`);
  // The same mix at realistic depths, without and with events (every sandbox, paper and backtest
  // run has a listener on the engine): the goal above is judged on the unbounded flow only.
  for (const depth of REALISTIC_DEPTHS) {
    const flow = generateFlow(REALISTIC_OPS, 42, depth);
    const fr = renderRequests(flow);
    const a = ours(flow, fr, 'none');
    a.run();
    const b = peer(flow);
    b.run();
    const d = sameBook(a.book(), b.book());
    if (d !== null) return { name: 'matching engine vs nodejs-order-book', lines: [...lines, `final books differ at depth ${depth}: ${d}`], ok: false };
    const rate = (listening: Listening): number => throughput(() => ours(flow, fr, listening), REALISTIC_OPS).cpu;
    const q = rate('none');
    const qb = rate('backtest');
    const qpaper = rate('paper');
    const qe = rate('all');
    const qp = throughput(() => peer(flow), REALISTIC_OPS).cpu;
    lines.push(
      `at most ${depth.toLocaleString('en-US')} live orders (${REALISTIC_OPS.toLocaleString('en-US')} ops, ${a.book().size} levels at the end), CPU: ours ${fmtRate(q)}, backtest events ${fmtRate(qb)}, paper events ${fmtRate(qpaper)}, all events ${fmtRate(qe)}, peer ${fmtRate(qp)}; ratio ${fmtRatio(q, qp)}, backtest events ${fmtRatio(qb, qp)}, paper events ${fmtRatio(qpaper, qp)}, all events ${fmtRatio(qe, qp)} (goal with events >= 1x)`,
    );
  }
  const ok = oursRate.wall >= 1_000_000 && oursRate.wall >= 3 * peerRate.wall;
  if (!ok) lines.push('goal missed: see the rates above');
  return { name: 'matching engine vs nodejs-order-book', lines, ok };
}
