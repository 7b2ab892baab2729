/**
 * One strategy, three modes, one market: the bundled BTCUSDT recording replayed by the sandbox over
 * loopback HTTP/WebSocket (live: orders to the sandbox's engine; paper: orders to the paper engine
 * fed by the sandbox's streams) and replayed by a backtest over the same recording window, with the
 * order latency the live run measured. Used by bench/parity.bench.ts (the table) and
 * test/integration/parity.test.ts (a lighter run).
 *
 * Clocks. The sandbox plays the recording at its receive times (ms) at `speed`, from its snapshot;
 * its engine applies each item then. The backtest replays at receive time too, shifted by the
 * recording's smallest receive-minus-event time (one offset for the whole file: a pure shift, so its
 * clock is the sandbox's recording clock plus a constant) and with strategy parameters that count
 * milliseconds multiplied by `speed`. The live and paper strategies' first and last instants, mapped
 * to recording time, are the backtest's `start` and `end`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { parse, stringify } from 'yaml';
import { prepareRun, sourcesOf } from '../src/backtest/Backtest.js';
import { parseBacktestConfig } from '../src/backtest/config.js';
import { receiveTimes, type FeedTimeStats } from '../src/backtest/feedTime.js';
import { loadRunConfig } from '../src/cli/runConfig.js';
import { RunSession } from '../src/cli/runSession.js';
import { Decimal } from '../src/core/decimal.js';
import { readRecordingBatches } from '../src/record/reader.js';
import { loadSandboxConfig, startSandbox } from '../src/sandbox/index.js';
import { loadRecording } from '../src/sandbox/recording.js';
import { loadPlugin, PROJECT_ROOT, plainErrorAt } from '../src/strategy/loader.js';
import { defineStrategy, type StrategyPlugin } from '../src/strategy/types.js';
import { Ledger } from '../src/store/Ledger.js';
import type { FillRecord } from '../src/store/records.js';

/** The bundled recording the sandbox and the backtest replay. */
export const RECORDING = path.join(PROJECT_ROOT, 'backtest-data/btcusdt-sample.ndjson.gz');
const SYMBOL = 'BTC_USDT';
/** Fees of the sandbox's demo account (config/paper-sandbox.yaml), used by paper and backtest too. */
const FEES = { makerBps: 0, takerBps: 7.5 };
const BALANCES = { USDT: '100000', BTC: '1' };

/** A strategy of the suite. `msParams` are parameters in ms of the run's clock (scaled by the speed in the backtest). */
export interface ParityCase {
  readonly name: string;
  readonly plugin: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly budget: Readonly<Record<string, string>>;
  readonly msParams?: readonly string[];
}

/** The example strategies (strategies/), with the parameters of their configs. */
export const CASES: readonly ParityCase[] = [
  {
    name: 'mm',
    plugin: 'market-maker',
    params: { spreadBps: 2, skewBps: 1, stepSize: '0.00001', quantity: '0.002', maxPosition: '0.01', minQuantity: '0.0001', tickSize: '0.01', refreshMs: 200, requoteTicks: 50 },
    budget: { USDT: '10000', BTC: '0' },
    msParams: ['refreshMs'],
  },
  { name: 'grid', plugin: 'grid-trader', params: { lowerPrice: '61700', upperPrice: '62000', levels: 16, quantity: '0.001', stepSize: '0.000001' }, budget: { USDT: '10000' } },
  { name: 'fader', plugin: 'trade-fader', params: { minQty: '0.05', quantity: '0.0002', offsetTicks: 0, tickSize: '0.01', maxOpen: 4 }, budget: { USDT: '10000', BTC: '0.05' } },
];

/** A fill as every mode reports it (the ledger's fields), keyed by its order's place in the run. */
export type ParityFill = Pick<FillRecord, 'side' | 'price' | 'qty' | 'quoteQty' | 'commission' | 'commissionAsset' | 'isMaker'> & { readonly clientKey: string };

/** What one mode did. */
export interface ModeOutcome {
  /** Place intents in order: side quantity@price. */
  readonly intents: string[];
  /** Recording time (receive ms) of each intent. */
  readonly placedAt: number[];
  readonly fills: ParityFill[];
}

/** Figures compared across modes (quote asset; base fees valued at their fill price). */
export interface Figures {
  readonly orders: number;
  readonly filledQty: number;
  readonly takerShare: number;
  readonly fees: number;
  readonly pnl: number;
  readonly turnover: number;
}

/** Net PnL at `mark` (cash flow + position x mark), fees, filled quantity and taker share of a fill list. */
export function figuresOf(o: ModeOutcome, mark: Decimal): Figures {
  let cash = new Decimal(0);
  let base = new Decimal(0);
  let fees = new Decimal(0);
  let qty = new Decimal(0);
  let taker = new Decimal(0);
  let turnover = new Decimal(0);
  for (const f of o.fills) {
    const baseFee = f.commissionAsset === 'BTC' ? f.commission : new Decimal(0);
    const quoteFee = f.commissionAsset === 'USDT' ? f.commission : new Decimal(0);
    if (f.side === 'BUY') {
      cash = cash.minus(f.quoteQty).minus(quoteFee);
      base = base.plus(f.qty).minus(baseFee);
    } else {
      cash = cash.plus(f.quoteQty).minus(quoteFee);
      base = base.minus(f.qty).minus(baseFee);
    }
    fees = fees.plus(quoteFee).plus(baseFee.mul(f.price));
    qty = qty.plus(f.qty);
    turnover = turnover.plus(f.quoteQty);
    if (!f.isMaker) taker = taker.plus(f.qty);
  }
  return {
    orders: o.intents.length,
    filledQty: qty.toNumber(),
    takerShare: qty.isZero() ? 0 : taker.div(qty).toNumber(),
    fees: fees.toNumber(),
    pnl: cash.plus(base.mul(mark)).toNumber(),
    turnover: turnover.toNumber(),
  };
}

/** Options of a suite run. */
export interface ParityOptions {
  /** Replay speed of the sandbox (1: real time). */
  readonly speed: number;
  /** Wall seconds of the live and paper runs (0: the whole recording). */
  readonly durationSec: number;
  readonly log?: (line: string) => void;
}

/** One strategy's three runs. */
export interface ParityResult {
  readonly c: ParityCase;
  readonly live: ModeOutcome;
  readonly paper: ModeOutcome;
  readonly backtest: ModeOutcome;
  /** Mark of every PnL: the backtest's mark at the window's end. */
  readonly mark: Decimal;
  /**
   * Measured in the live run (medians, wall ms): from the sandbox stamping a depth diff or trade to
   * the strategy getting it, from sending an order to the sandbox's engine booking it, and from there
   * to the acknowledgement reaching the run; and in recording ms what the backtest used: entry (and
   * cancel) = feed + entry, report = acknowledgement.
   */
  readonly measured: { readonly feedWallMs: number; readonly entryWallMs: number | undefined; readonly ackWallMs: number | undefined; readonly entryMs: number; readonly ackMs: number; readonly samples: number };
  /** Recording-time window (receive ms) of the orders compared: placed while both the live and the paper run traded. */
  readonly window: { readonly startMs: number; readonly endMs: number };
}

/** The recording's smallest receive-minus-event time (the backtest's pure-shift clock offset). */
async function recordingOffset(): Promise<number> {
  const stats: FeedTimeStats = { windows: 0, firstOffsetMs: undefined, lastOffsetMs: undefined };
  for await (const x of receiveTimes(readRecordingBatches(RECORDING), { windowMs: Number.MAX_SAFE_INTEGER, stats })) void x;
  return stats.firstOffsetMs ?? 0;
}

/** What a watched strategy saw: its start (wall ms) and the first and last public trades (sandbox E, wall ms). */
interface Seen {
  startWall?: number;
  trades: { E: number; key: string }[];
  last?: { E: number; key: string };
  /** Wall ms from the sandbox stamping each depth diff and trade to the strategy getting it. */
  feed: number[];
}

const tradeKey = (price: Decimal, qty: Decimal): string => `${price.toFixed()}x${qty.toFixed()}`;

/** Wraps a plugin to note when it started and the trades it saw (their E is the sandbox's wall clock). */
function watched(inner: StrategyPlugin, seen: Seen): StrategyPlugin {
  return defineStrategy({
    name: inner.name,
    description: inner.description,
    params: inner.params,
    create: (ctx) => {
      const h = inner.create(ctx as never);
      return {
        onStart: () => {
          seen.startWall = Date.now();
          h.onStart?.();
        },
        onEvent: (e) => {
          if (e.type === 'trade' || e.type === 'depthDiff') seen.feed.push(Date.now() - e.E);
          if (e.type === 'trade') {
            const t = { E: e.E, key: tradeKey(e.price, e.qty) };
            if (seen.trades.length < 12) seen.trades.push(t);
            seen.last = t;
          }
          h.onEvent(e);
        },
        onStop: () => h.onStop?.(),
      };
    },
  });
}

/**
 * Maps the sandbox's wall clock to recording time (receive ms) by finding the first trades a run
 * saw in the recording (a run of consecutive trades with the same prices and sizes): the sandbox
 * stamps each trade with the time it applied it, `speed` times slower than the recording.
 */
function wallToRecording(seen: Seen, speed: number): (wall: number) => number {
  const rec = loadRecording(RECORDING, 'BTCUSDT').flatMap((e) => (e.kind === 'trade' ? [{ ms: e.ms, key: tradeKey(e.price, e.qty) }] : []));
  const run = seen.trades.slice(0, 6);
  const at = rec.findIndex((_, i) => run.length > 0 && run.every((t, j) => rec[i + j]?.key === t.key));
  const first = run[0];
  if (at < 0 || first === undefined) throw new Error(`the run's first trades are not in ${RECORDING}`);
  const recMs = (rec[at] as { ms: number }).ms;
  return (wall) => recMs + (wall - first.E) * speed;
}

/** Runs the case live or on paper against its own in-process sandbox; returns the outcome, the ledger's latency samples and the wall window. */
async function runAgainstSandbox(mode: 'live' | 'paper', c: ParityCase, o: ParityOptions, dir: string, paperLatencyMs: number): Promise<{ outcome: ModeOutcome; latency: Latencies; toRec: (wall: number) => number; startWall: number; endWall: number }> {
  const sandboxDoc = parse(readFileSync(path.join(PROJECT_ROOT, 'config/paper-sandbox.yaml'), 'utf8')) as { market: { replay: Record<string, unknown> }[] };
  for (const m of sandboxDoc.market) m.replay = { ...m.replay, file: RECORDING, loop: false, speed: o.speed };
  const sandboxFile = path.join(dir, `${mode}-sandbox.yaml`);
  writeFileSync(sandboxFile, stringify(sandboxDoc));
  const runFile = path.join(dir, `${mode}.yaml`);
  const ledgerFile = path.join(dir, `${mode}.db`);
  writeFileSync(
    runFile,
    stringify({
      mode,
      name: `parity-${mode}`,
      sandbox: { config: sandboxFile },
      strategies: [{ name: c.name, plugin: c.plugin, symbols: [SYMBOL], budget: c.budget, params: c.params }],
      risk: { mode: 'reject' },
      paper: { ...FEES, balances: BALANCES, latencyMs: paperLatencyMs },
      storage: { path: ledgerFile },
      run: { durationSec: 0, statusIntervalSec: 3600, timerMs: 1000, cancelOnShutdown: false },
      logging: { level: 'silent' },
    }),
  );
  const cfg = loadRunConfig(runFile);
  const seen: Seen = { trades: [], feed: [] };
  const plugin = watched(await loadPlugin(c.plugin, cfg.dir, plainErrorAt(runFile), ['strategies', 0]), seen);
  const sandbox = await startSandbox(loadSandboxConfig(sandboxFile), { quiet: false });
  const acct = sandbox.accounts[0];
  if (acct === undefined) throw new Error('the sandbox has no account');
  // When each order reached the sandbox's engine (the same wall clock): entry and report latency apart.
  const atEngine = new Map<string, number>();
  const off = sandbox.engine.subscribe(
    (e) => {
      if (e.type === 'executionReport' && e.x === 'NEW') atEngine.set(e.c, e.E);
    },
    { marketData: false },
  );
  let endWall = 0;
  try {
    const session = await RunSession.start({
      config: cfg,
      endpoints: sandbox.urls,
      credentials: { apiKey: acct.apiKey, apiSecret: acct.secret, legacyKey: acct.legacyApiKey, legacySecret: acct.legacySecret },
      plugins: new Map([[c.name, plugin]]),
      log: pino({ level: 'silent' }),
    });
    await Promise.race([sandbox.marketEnded, ...(o.durationSec > 0 ? [new Promise((r) => setTimeout(r, o.durationSec * 1000))] : [])]);
    endWall = Date.now();
    await session.stop('parity run done');
  } finally {
    off();
    await sandbox.stop();
  }
  const ledger = Ledger.open(ledgerFile);
  try {
    const orders = ledger.orders().sort((a, b) => a.createdAt - b.createdAt || (a.clientId < b.clientId ? -1 : 1));
    const keyOf = new Map(orders.map((x, i) => [x.clientId, String(i)]));
    const latency: Latencies = { entry: [], ack: [], feed: seen.feed };
    for (const x of orders) {
      const acked = ledger.transitions(x.clientId).find((t) => t.to === 'NEW' || t.to === 'PARTIALLY_FILLED' || t.to === 'FILLED');
      const engineAt = atEngine.get(x.clientId);
      if (x.sentAt === undefined || acked === undefined || engineAt === undefined) continue;
      latency.entry.push(engineAt - x.sentAt);
      latency.ack.push(acked.ts - engineAt);
    }
    const fills: ParityFill[] = ledger.fills().map((f) => ({ clientKey: keyOf.get(f.clientId) ?? f.clientId, side: f.side, price: f.price, qty: f.qty, quoteQty: f.quoteQty, commission: f.commission, commissionAsset: f.commissionAsset, isMaker: f.isMaker }));
    const toRec = wallToRecording(seen, o.speed);
    const outcome = { intents: orders.map((x) => `${x.side} ${x.quantity?.toFixed()}@${x.price?.toFixed() ?? 'MKT'}`), placedAt: orders.map((x) => toRec(x.createdAt)), fills };
    return { outcome, latency, toRec, startWall: seen.startWall ?? endWall, endWall };
  } finally {
    ledger.close();
  }
}

/** Orders placed in the last this-many ms of recording time of the shorter run are not compared. */
const END_MARGIN_MS = 3000;

/** The intents placed in [from, to] (recording ms) and their fills, renumbered. */
function trimmed(o: ModeOutcome, from: number, to: number): ModeOutcome {
  const keep = new Map<string, string>();
  const intents: string[] = [];
  const placedAt: number[] = [];
  o.placedAt.forEach((t, i) => {
    if (t < from || t > to) return;
    keep.set(String(i), String(intents.length));
    intents.push(o.intents[i] as string);
    placedAt.push(t);
  });
  const fills = o.fills.flatMap((f) => {
    const k = keep.get(f.clientKey);
    return k === undefined ? [] : [{ ...f, clientKey: k }];
  });
  return { intents, placedAt, fills };
}

/** Per order of a live run: wall ms from sending to the engine, and from the engine to the acknowledgement. */
interface Latencies {
  entry: number[];
  ack: number[];
  feed: number[];
}

const median = (xs: readonly number[]): number | undefined => (xs.length === 0 ? undefined : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);

/** Runs one case live, on paper (concurrently, each against its own sandbox) and as a backtest of the same window. */
export async function runParityCase(c: ParityCase, o: ParityOptions): Promise<ParityResult> {
  const dir = mkdtempSync(path.join(tmpdir(), `kancil-parity-${c.name}-`));
  try {
    // Paper's simulated order latency: one wall ms each way, about what the loopback round trip to
    // the sandbox measures (reported per run below); the backtest uses the live run's measurement.
    const [live, paper] = await Promise.all([runAgainstSandbox('live', c, o, dir, 0), runAgainstSandbox('paper', c, o, dir, 1)]);
    const offset = await recordingOffset();
    // The live run's medians in recording time: what the backtest is given. Live, the strategy sees
    // the market a feed latency after the sandbox's engine moved it (the backtest's engine and
    // strategy see it at once): an order reaches the engine feed + entry after the event it answers.
    const feedWall = median(live.latency.feed) ?? 0;
    const entryMs = Math.round((feedWall + (median(live.latency.entry) ?? 0)) * o.speed);
    const ackMs = Math.round((median(live.latency.ack) ?? 0) * o.speed);
    // Each run joined its own sandbox's replay at its own moment: the backtest covers both runs, and
    // the orders compared are those every run placed (in the overlap, but for the last few seconds,
    // whose orders one run would not have had time to fill).
    const starts = [live.toRec(live.startWall), paper.toRec(paper.startWall)];
    const ends = [live.toRec(live.endWall), paper.toRec(paper.endWall)];
    const window = { startMs: Math.round(Math.max(...starts)), endMs: Math.round(Math.min(...ends) - END_MARGIN_MS) };
    const params: Record<string, unknown> = { ...c.params };
    for (const k of c.msParams ?? []) params[k] = Number(params[k]) * o.speed;
    const sandboxDoc = parse(readFileSync(path.join(PROJECT_ROOT, 'config/paper-sandbox.yaml'), 'utf8')) as { symbols: { filters: unknown[] }[] };
    const cfg = parseBacktestConfig(
      {
        mode: 'backtest',
        name: `parity-${c.name}`,
        symbols: { [SYMBOL]: { filters: sandboxDoc.symbols[0]?.filters } },
        strategies: [{ name: c.name, plugin: c.plugin, symbols: [SYMBOL], budget: c.budget, params }],
        risk: { mode: 'reject' },
        backtest: {
          recordings: [{ symbol: SYMBOL, files: [RECORDING] }],
          fees: FEES,
          balances: BALANCES,
          latency: { entryMs, cancelMs: entryMs, ackMs },
          feed: { offsetMs: offset },
          timerMs: 1000 * o.speed,
          start: Math.round(Math.min(...starts) - offset),
          end: Math.round(Math.max(...ends) - offset),
        },
      },
      path.join(dir, 'backtest.yaml'),
    );
    const run = await prepareRun(cfg);
    const intents: string[] = [];
    const placedAt: number[] = [];
    const keyOf = new Map<string, string>();
    const fills: ParityFill[] = [];
    run.bus.events$.subscribe((e) => {
      if (e.type === 'orderUpdate' && e.state === 'PENDING') {
        keyOf.set(e.clientId, String(intents.length));
        intents.push(`${e.side} ${e.quantity?.toFixed()}@${e.price?.toFixed() ?? 'MKT'}`);
        placedAt.push(e.E + offset);
      }
      if (e.type === 'fill') fills.push({ clientKey: keyOf.get(e.clientId) ?? e.clientId, side: e.side, price: e.price, qty: e.qty, quoteQty: e.quoteQty, commission: e.commission, commissionAsset: e.commissionAsset, isMaker: e.isMaker });
    });
    await run.replay.run(sourcesOf(cfg));
    const mark = run.replay.mark(SYMBOL) ?? new Decimal(0);
    run.finish();
    o.log?.(`${c.name}: live feed ${feedWall} ms, entry ${median(live.latency.entry) ?? 'n/a'} ms, report ${median(live.latency.ack) ?? 'n/a'} ms wall (${live.latency.entry.length} orders), window ${window.startMs}..${window.endMs}`);
    const inWindow = (x: ModeOutcome): ModeOutcome => trimmed(x, window.startMs, window.endMs);
    return { c, live: inWindow(live.outcome), paper: inWindow(paper.outcome), backtest: inWindow({ intents, placedAt, fills }), mark, measured: { feedWallMs: feedWall, entryWallMs: median(live.latency.entry), ackWallMs: median(live.latency.ack), entryMs, ackMs, samples: live.latency.entry.length }, window };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The goal of every compared figure: within 10 % of the live run's. */
export const GOAL = 0.1;

/** Relative gap of `x` to `ref` (0 when both are 0). */
export function gap(x: number, ref: number): number {
  if (x === ref) return 0;
  return Math.abs(x - ref) / Math.max(Math.abs(ref), 1e-12);
}

/** The PnL gap in basis points of the reference's turnover (PnL near zero makes a relative gap meaningless). */
export function pnlGapBps(x: Figures, ref: Figures): number {
  return ref.turnover > 0 ? (Math.abs(x.pnl - ref.pnl) / ref.turnover) * 10_000 : 0;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const num = (x: number, d = 6): string => x.toFixed(d).replace(/\.?0+$/, '') || '0';

/** Whether the place intents of `a` equal a contiguous run of `b`'s (a run joins a moment late and may miss the first ones). */
export function contiguousIn(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0) return true;
  for (let i = 0; i + a.length <= b.length; i++) if (a.every((x, j) => b[i + j] === x)) return true;
  return false;
}

/** Table rows (markdown) of results: every mode's figures and its gaps to the live run. */
export function parityTable(results: readonly ParityResult[]): { lines: string[]; met: boolean } {
  const lines = [
    '| strategy | mode | orders | filled qty | taker share | fees (USDT) | PnL (USDT) | qty gap | fee gap | taker gap | PnL gap | PnL gap, bps of turnover |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  let met = true;
  for (const r of results) {
    const live = figuresOf(r.live, r.mark);
    for (const m of ['live', 'paper', 'backtest'] as const) {
      const f = figuresOf(r[m], r.mark);
      const g = m === 'live' ? undefined : { qty: gap(f.filledQty, live.filledQty), fee: gap(f.fees, live.fees), taker: Math.abs(f.takerShare - live.takerShare), pnl: gap(f.pnl, live.pnl), bps: pnlGapBps(f, live) };
      if (g && (g.qty > GOAL || g.fee > GOAL || g.taker > GOAL || g.pnl > GOAL)) met = false;
      const cells = g ? [pct(g.qty), pct(g.fee), `${(g.taker * 100).toFixed(1)} pp`, pct(g.pnl), g.bps.toFixed(2)] : ['', '', '', '', ''];
      lines.push(`| ${r.c.plugin} | ${m} | ${f.orders} | ${num(f.filledQty)} | ${pct(f.takerShare)} | ${num(f.fees, 4)} | ${num(f.pnl, 4)} | ${cells.join(' | ')} |`);
    }
    const timing = r.c.plugin === 'trade-fader' ? `; place intents: paper ${contiguousIn(r.paper.intents, r.backtest.intents) ? '=' : '!='} backtest, live ${contiguousIn(r.live.intents, r.backtest.intents) ? '=' : '!='} backtest (contiguous)` : '';
    const m = r.measured;
    lines.push(`|  | measured | live: feed ${m.feedWallMs} ms, order to engine ${m.entryWallMs ?? 'n/a'} ms, engine to acknowledgement ${m.ackWallMs ?? 'n/a'} ms wall (medians of ${m.samples}); backtest: entry ${m.entryMs} ms, report ${m.ackMs} ms of recording time${timing} |`);
  }
  return { lines, met };
}
