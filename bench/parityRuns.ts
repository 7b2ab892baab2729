/**
 * One strategy, three modes, one market: the bundled BTCUSDT recording replayed by the sandbox over
 * loopback HTTP/WebSocket (live: orders to the sandbox's engine; paper: orders to the paper engine
 * fed by the sandbox's streams) and replayed by a backtest over the same recording window; paper and
 * the backtest run after the live run, with the latency each of its orders had. Used by bench/parity.bench.ts (the table) and
 * test/integration/parity.test.ts (a lighter run).
 *
 * One window. Each sandbox holds its replay until its run has subscribed to the depth stream, then
 * starts it at the recording's snapshot: every mode's strategy starts at that instant with that
 * book (the grid places its whole ladder then), and wall time maps to recording time exactly
 * (receive ms = snapshot ms + elapsed wall x `speed`). Every mode is compared over the same
 * recording window, from the snapshot to the recording's end (or `durationSec` of wall time),
 * every PnL at the backtest's mark at the window's end.
 *
 * Clocks. The sandbox plays the recording at its receive times (ms) at `speed`; its engine applies
 * each item then, and its streams send each replayed diff on at once. The backtest replays at
 * receive time too, shifted by the recording's smallest receive-minus-event time (one offset for
 * the whole file: a pure shift), with strategy parameters that count wall milliseconds and the
 * measured latencies multiplied by `speed` (a wall ms of the sandbox run is `speed` recording ms).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { parse, stringify } from 'yaml';
import { prepareRun, sourcesOf } from '../src/backtest/Backtest.js';
import { parseBacktestConfig } from '../src/backtest/config.js';
import type { LatencySpec } from '../src/venue/latency.js';
import { loadRunConfig } from '../src/cli/runConfig.js';
import { DEFAULT_MAX_EXCHANGE_LAG_MS, DEFAULT_STREAM_HOLD_MS } from '../src/config/schema.js';
import { RunSession } from '../src/cli/runSession.js';
import { Decimal } from '../src/core/decimal.js';
import { loadSandboxConfig, startSandbox } from '../src/sandbox/index.js';
import { loadPlugin, PROJECT_ROOT, plainErrorAt } from '../src/strategy/loader.js';
import { Ledger } from '../src/store/Ledger.js';
import type { TransitionRecord } from '../src/store/records.js';
import { recordingOffset, recordingSpan } from './parityRecording.js';
import { type EngineOp, fillsDiffer, noteReport, replayOps } from './parityReplay.js';
import { contiguousAt, figuresOf, type ModeOutcome, type ParityCase, type ParityFill, type ParityResult } from './parityResults.js';
import { latencyFile, type Latencies, median, quantile, replayLatency, type Seen, watched } from './parityWatch.js';

/** The bundled recording the sandbox and the backtest replay. */
export const RECORDING = path.join(PROJECT_ROOT, 'backtest-data/btcusdt-sample.ndjson.gz');
const SYMBOL = 'BTC_USDT';
/** Fees of the sandbox's demo account (config/paper-sandbox.yaml), used by paper and backtest too. */
const FEES = { makerBps: 0, takerBps: 7.5 };
const BALANCES = { USDT: '100000', BTC: '1' };

/** The example strategies (strategies/), with the parameters of their configs. */
export const CASES: readonly ParityCase[] = [
  {
    name: 'mm',
    plugin: 'market-maker',
    params: { spreadBps: 2, skewBps: 1, stepSize: '0.00001', quantity: '0.002', maxPosition: '0.01', minQuantity: '0.0001', tickSize: '0.01', refreshMs: 200, requoteTicks: 50 },
    budget: { USDT: '10000', BTC: '0' },
    msParams: ['refreshMs'],
  },
  { name: 'grid', plugin: 'grid-trader', params: { lowerPrice: '61700', upperPrice: '62000', levels: 16, quantity: '0.001', stepSize: '0.000001' }, budget: { USDT: '10000' }, sameIntents: true },
  { name: 'fader', plugin: 'trade-fader', params: { minQty: '0.05', quantity: '0.0002', offsetTicks: 0, tickSize: '0.01', maxOpen: 4 }, budget: { USDT: '10000', BTC: '0.05' } },
  // One-minute bars: the 11-minute recording holds ten whole ones, which SMA(2)/SMA(3) turn into
  // three signals, the last a minute before the end (the bundled 120 s hold one bar: no signal).
  { name: 'sma', plugin: 'sma-crossover', params: { fast: 2, slow: 3, kind: 'SMA', interval: '1m', quantity: '0.001' }, budget: { USDT: '10000', BTC: '0' }, sameIntents: true },
];

/** The orders and cancels that reached a run's engine and the quantity each order filled there. */
interface EngineRecord {
  readonly ops: EngineOp[];
  readonly filled: Map<string, Decimal>;
}

/** Options of a suite run. */
export interface ParityOptions {
  /** Replay speed of the sandbox (1: real time). */
  readonly speed: number;
  /** Wall seconds of the live and paper runs (0: the whole recording). */
  readonly durationSec: number;
  readonly log?: (line: string) => void;
  /** The recording every mode replays (default: the bundled one, `RECORDING`). */
  readonly recording?: string;
  /** Also runs live a second time, concurrently, to measure how far two live runs differ. */
  readonly liveTwice?: boolean;
}

/** Waits until the run has subscribed to a depth stream of the sandbox (then its replay may start). */
async function subscribed(sandbox: Awaited<ReturnType<typeof startSandbox>>, failed: Promise<unknown>): Promise<void> {
  let done = false;
  void failed.catch(() => (done = true));
  const deadline = Date.now() + 30_000;
  while (!sandbox.streams.connections().some((c) => c.subscriptions.some((x) => x.includes('@depth')))) {
    if (done) return;
    if (Date.now() > deadline) throw new Error('the run did not subscribe to the depth stream within 30 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Runs the case live or on paper against its own in-process sandbox; returns the outcome, the ledger's latency samples and the wall window. */
async function runAgainstSandbox(mode: 'live' | 'paper', tag: string, c: ParityCase, o: ParityOptions, dir: string, paperLatency: Readonly<Record<string, LatencySpec>>, span: { startMs: number; endMs: number }, notBefore?: number): Promise<{ outcome: ModeOutcome; latency: Latencies; startRec: number; engine: EngineRecord }> {
  const sandboxDoc = parse(readFileSync(path.join(PROJECT_ROOT, 'config/paper-sandbox.yaml'), 'utf8')) as { market: { replay: Record<string, unknown> }[] };
  for (const m of sandboxDoc.market) m.replay = { ...m.replay, file: o.recording ?? RECORDING, loop: false, speed: o.speed };
  const sandboxFile = path.join(dir, `${tag}-sandbox.yaml`);
  writeFileSync(sandboxFile, stringify(sandboxDoc));
  const runFile = path.join(dir, `${tag}.yaml`);
  const ledgerFile = path.join(dir, `${tag}.db`);
  writeFileSync(
    runFile,
    stringify({
      mode,
      name: `parity-${tag}`,
      sandbox: { config: sandboxFile },
      strategies: [{ name: c.name, plugin: c.plugin, symbols: [SYMBOL], budget: c.budget, params: c.params }],
      risk: { mode: 'reject' },
      paper: { ...FEES, balances: BALANCES, latency: paperLatency },
      storage: { path: ledgerFile },
      run: { durationSec: 0, statusIntervalSec: 3600, timerMs: 1000, cancelOnShutdown: false },
      logging: { level: 'silent' },
    }),
  );
  const cfg = loadRunConfig(runFile);
  const seen: Seen = { trades: [], depth: [], fills: new Map(), fillsReplayed: new Map(), placed: new Map(), cancels: [], replayedTo: () => undefined, ...(notBefore !== undefined ? { notBefore } : {}) };
  const plugin = watched(await loadPlugin(c.plugin, cfg.dir, plainErrorAt(runFile), ['strategies', 0]), seen);
  const sandbox = await startSandbox(loadSandboxConfig(sandboxFile), { holdMarket: true });
  const acct = sandbox.accounts[0];
  if (acct === undefined) throw new Error('the sandbox has no account');
  // When each order reached the sandbox's engine (the same wall clock): entry and report latency apart.
  // When the engine applied each depth update (the same wall clock): the feed latency of depth.
  const atEngine = new Map<string, number>();
  const depthAt = new Map<number, number>();
  // When the engine made each fill (the same wall clock): how late the user data stream tells the strategy.
  const fillAt = new Map<string, number>();
  // Where the replay stood (recorded receive ms) when each market event and each order reached the engine.
  seen.replayedTo = () => sandbox.feeds[0]?.replayedTo;
  const replayedAt = new Map<string, number | undefined>();
  const engine: EngineRecord = { ops: [], filled: new Map() };
  const off = sandbox.engine.subscribe((e) => {
    if (e.type === 'executionReport') noteReport(e, (seen.replayedTo() ?? 0) + 1, engine.ops, engine.filled);
    if (e.type === 'executionReport' && e.x === 'TRADE') {
      fillAt.set(`${e.c}/${e.t}`, e.E);
      replayedAt.set(`f${e.c}/${e.t}`, seen.replayedTo());
      if (e.X === 'FILLED') replayedAt.set(`e${e.c}`, seen.replayedTo());
    }
    if (e.type === 'executionReport' && e.x === 'NEW') {
      atEngine.set(e.c, e.E);
      replayedAt.set(e.c, seen.replayedTo());
    } else if (e.type === 'executionReport' && e.x === 'CANCELED') replayedAt.set(`x${e.C || e.c}`, seen.replayedTo());
    else if (e.type === 'depthUpdate') {
      depthAt.set(e.u, e.E);
      replayedAt.set(`d${e.u}`, seen.replayedTo());
    } else if (e.type === 'trade') replayedAt.set(`t${e.id}`, seen.replayedTo());
  });
  let startWall = 0;
  try {
    const starting = RunSession.start({
      config: cfg,
      endpoints: sandbox.urls,
      credentials: { apiKey: acct.apiKey, apiSecret: acct.secret, legacyKey: acct.legacyApiKey, legacySecret: acct.legacySecret },
      plugins: new Map([[c.name, plugin]]),
      log: pino({ level: 'silent' }),
    });
    await subscribed(sandbox, starting);
    startWall = Date.now();
    sandbox.startMarket();
    const session = await starting;
    await Promise.race([sandbox.marketEnded, ...(o.durationSec > 0 ? [new Promise((r) => setTimeout(r, startWall + o.durationSec * 1000 - Date.now()))] : [])]);
    // The window ends here in every mode: the market stops moving before the run stops.
    for (const f of sandbox.feeds) f.stop();
    await session.stop('parity run done');
  } finally {
    off();
    await sandbox.stop();
  }
  const ledger = Ledger.open(ledgerFile);
  try {
    // Placing order: by creation time, then by the clientId's counter (run-tag-N: -999 before -1000).
    const orders = ledger.orders().sort((a, b) => a.createdAt - b.createdAt || a.clientId.length - b.clientId.length || (a.clientId < b.clientId ? -1 : 1));
    const keyOf = new Map(orders.map((x, i) => [x.clientId, String(i)]));
    const feed = [...seen.trades, ...seen.depth.flatMap((d) => (depthAt.has(d.u) ? [d.at - (depthAt.get(d.u) as number)] : []))];
    const fill = [...fillAt].flatMap(([k, at]) => (seen.fills.has(k) ? [(seen.fills.get(k) as number) - at] : []));
    const fillReplay = [...fillAt.keys()].flatMap((k) => {
      const from = replayedAt.get(`f${k}`);
      const to = seen.fillsReplayed.get(k);
      return from === undefined || to === undefined ? [] : [to - from];
    });
    const latency: Latencies = { entry: [], ack: [], feed, fill, fillReplay, perOrder: [], placedReplay: [], perCancel: seen.cancels.map((x) => replayLatency(x, replayedAt, `x${x.clientId}`) ?? replayLatency(x, replayedAt, `e${x.clientId}`)), cancelReplay: seen.cancels.map((x) => x.replayedTo) };
    // The first acknowledgement of each order, from one read of the transitions (no index serves one order's).
    const ackOf = new Map<string, TransitionRecord>();
    for (const t of ledger.transitions()) if ((t.to === 'NEW' || t.to === 'PARTIALLY_FILLED' || t.to === 'FILLED') && !ackOf.has(t.clientId)) ackOf.set(t.clientId, t);
    for (const x of orders) {
      latency.perOrder.push(replayLatency(seen.placed.get(x.clientId), replayedAt, x.clientId));
      latency.placedReplay.push(seen.placed.get(x.clientId)?.replayedTo);
      const acked = ackOf.get(x.clientId);
      const engineAt = atEngine.get(x.clientId);
      if (x.sentAt === undefined || acked === undefined || engineAt === undefined) continue;
      latency.entry.push(engineAt - x.sentAt);
      latency.ack.push(acked.ts - engineAt);
    }
    // Recording times are where the sandbox's replay stood, not wall ms mapped from its start: the
    // replay falls behind its schedule (by 0.7-1.7 s, mostly while the second live run loads its
    // recording) and stays that far behind, so a wall-mapped time would put the backtest's start
    // and every live order that far late.
    const toRec = (wall: number): number => span.startMs + (wall - startWall) * o.speed;
    const fills: ParityFill[] = ledger.fills().map((f) => ({ clientKey: keyOf.get(f.clientId) ?? f.clientId, side: f.side, price: f.price, qty: f.qty, quoteQty: f.quoteQty, commission: f.commission, commissionAsset: f.commissionAsset, isMaker: f.isMaker, at: replayedAt.get(`f${f.clientId}/${f.tradeId}`) ?? toRec(f.time) }));
    const outcome = { intents: orders.map((x) => `${x.side} ${x.quantity?.toFixed()}@${x.price?.toFixed() ?? 'MKT'}`), placedAt: orders.map((x) => seen.placed.get(x.clientId)?.replayedTo ?? toRec(x.createdAt)), fills };
    // The backtest's strategy must see what this one saw: from its start or the first market data it got, whichever is earlier.
    const firstAt = seen.firstKey === undefined ? undefined : replayedAt.get(seen.firstKey);
    return { outcome, latency, engine, startRec: firstAt ?? toRec(Math.min(seen.startWall ?? startWall, seen.firstSentWall ?? Infinity)) };
  } finally {
    ledger.close();
  }
}

/** The intents placed in [from, to] (recording ms) and their fills, renumbered. */
export function trimmed(o: ModeOutcome, from: number, to: number): ModeOutcome {
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


/** What a parity backtest is given besides its entry latency (the live run's measures, the window). */
export interface BacktestInputs {
  readonly c: ParityCase;
  readonly recording: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly filters: unknown;
  readonly cancel: LatencySpec;
  readonly ackMs: number;
  readonly streamHoldMs: number;
  /** Seed of the latency draws (a `random`-order file, a log-normal). */
  readonly seed?: number;
  readonly offset: number;
  /**
   * backtest.feed.maxExchangeLagMs. Default 0, one clock: the sandbox the live runs trade against
   * applies each replayed message to its engine when the recorder received it and streams it then,
   * so its exchange's clock is the receive clock; the backtest of that world is one clock too. A
   * larger value models a real exchange (src/backtest/twoClocks.ts), which the suite logs beside it.
   */
  readonly maxExchangeLagMs?: number;
  readonly timerMs: number;
  /** Virtual ms (recording receive ms minus `offset`). */
  readonly start: number;
  readonly end: number;
  readonly dir: string;
}

/** A parity backtest's outcome, its mark at the window's end and the orders that reached its engine. */
export interface BacktestRun {
  readonly outcome: ModeOutcome;
  readonly mark: Decimal;
  readonly engine: EngineRecord;
}

/** Runs the case as a backtest of the recording window with `entry` as its order-entry latency. */
export async function runParityBacktest(x: BacktestInputs, entry: LatencySpec): Promise<BacktestRun> {
  const { c, offset } = x;
  const cfg = parseBacktestConfig(
    {
      mode: 'backtest',
      name: `parity-${c.name}`,
      symbols: { [SYMBOL]: { filters: x.filters } },
      strategies: [{ name: c.name, plugin: c.plugin, symbols: [SYMBOL], budget: c.budget, params: x.params }],
      risk: { mode: 'reject' },
      backtest: {
        recordings: [{ symbol: SYMBOL, files: [x.recording] }],
        fees: FEES,
        balances: BALANCES,
        latency: { entryMs: entry, cancelMs: x.cancel, ackMs: x.ackMs, streamHoldMs: x.streamHoldMs, ...(x.seed === undefined ? {} : { seed: x.seed }) },
        feed: { offsetMs: offset, maxExchangeLagMs: x.maxExchangeLagMs ?? 0 },
        timerMs: x.timerMs,
        start: x.start,
        end: x.end,
      },
    },
    path.join(x.dir, 'backtest.yaml'),
  );
  const run = await prepareRun(cfg);
  // An order at virtual time t met the items replayed before t: those received before t + offset.
  const engine: EngineRecord = { ops: [], filled: new Map() };
  run.engine?.subscribe(
    (e) => {
      if (e.type === 'executionReport') noteReport(e, e.E + offset, engine.ops, engine.filled);
    },
    { marketData: false, accountPositions: false },
  );
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
    if (e.type === 'fill') fills.push({ clientKey: keyOf.get(e.clientId) ?? e.clientId, side: e.side, price: e.price, qty: e.qty, quoteQty: e.quoteQty, commission: e.commission, commissionAsset: e.commissionAsset, isMaker: e.isMaker, at: e.E + offset });
  });
  await run.replay.run(sourcesOf(cfg));
  const mark = run.replay.mark(SYMBOL) ?? new Decimal(0);
  run.finish();
  return { outcome: { intents, placedAt, fills }, mark, engine };
}

/** Runs one case live (twice at once with `liveTwice`), then on paper (each against its own sandbox) and as a backtest of the same window, both with the live run's latency order by order. */
export async function runParityCase(c: ParityCase, o: ParityOptions): Promise<ParityResult> {
  const dir = mkdtempSync(path.join(tmpdir(), `kancil-parity-${c.name}-`));
  try {
    const recording = o.recording ?? RECORDING;
    const span = recordingSpan(recording);
    const [live, again] = await Promise.all([runAgainstSandbox('live', 'live', c, o, dir, {}, span), ...(o.liveTwice ? [runAgainstSandbox('live', 'live-again', c, o, dir, {}, span)] : [])]);
    // What paper and the backtest are given: the live run's latency of each order on the replay's
    // clock, from the market it answered to the market it met (replayLatency): feed, time to place
    // and entry. Live, the strategy sees the market a feed latency after the sandbox's engine moved
    // it; paper's and the backtest's engines move when their strategy sees it. A median is not
    // enough: orders placed in a burst of trades reach the engine one after another, tens of ms
    // late, and those are the ones that meet a moved book (src/backtest/README.md, "Parity").
    const feedWall = median(live.latency.feed) ?? 0;
    const measured = live.latency.perOrder.filter((x): x is number => x !== undefined);
    const entryMs = median(measured) ?? Math.round((feedWall + (median(live.latency.entry) ?? 0)) * o.speed);
    const perOrder = live.latency.perOrder.map((x) => x ?? entryMs);
    // Cancels too: the fader cancels its oldest order in the same bursts, and a cancel that comes
    // late lets that order fill first. A cancel that found its order filled reached the engine after
    // that fill: it gets the time to the fill (a lower bound), not the median, which put the
    // backtest's cancel ahead of the fill (the fader's bursts: 127 orders live filled, cancelled in
    // the backtest). Any other that found its order ended gets the median.
    const perCancel = live.latency.perCancel.map((x) => x ?? entryMs);
    const cancelLatency = (file: string, xs: readonly number[]): LatencySpec => (xs.length > 0 ? { file: latencyFile(file, xs), order: 'recorded' } : entryMs);
    const ackMs = Math.round((median(live.latency.ack) ?? 0) * o.speed);
    // A resting order's fills reach a live strategy only over the user data stream, whose client
    // holds each event for its E-ordering window: paper and the backtest add what that way took
    // beyond an acknowledgement (latency.streamHoldMs; the default when the live run filled nothing).
    const fillWall = median(live.latency.fill);
    const streamHoldMs = fillWall === undefined ? DEFAULT_STREAM_HOLD_MS : Math.max(0, Math.round(fillWall * o.speed) - ackMs);
    // Paper runs on the wall clock (recorded ms / speed), order by order from the same start.
    const wall = (x: number): number => x / o.speed;
    const paperLatency = { entryMs: { file: latencyFile(path.join(dir, 'paper-entry.txt'), perOrder.map(wall)), order: 'recorded' as const }, cancelMs: cancelLatency(path.join(dir, 'paper-cancel.txt'), perCancel.map(wall)), ackMs: Math.round(wall(ackMs)), streamHoldMs: Math.round(wall(streamHoldMs)) };
    // Paper's start-up is shorter than live's: it starts where live's strategy did, not sooner (an
    // early start met a sweep at the recording's first second that live never saw).
    const paper = await runAgainstSandbox('paper', 'paper', c, o, dir, paperLatency, span, live.startRec);
    const offset = await recordingOffset(recording);
    // One window for every mode: from the replay's start to its end (or the runs' duration).
    const window = { startMs: span.startMs, endMs: o.durationSec > 0 ? Math.min(span.endMs, span.startMs + o.durationSec * 1000 * o.speed) : span.endMs };
    const params: Record<string, unknown> = { ...c.params };
    for (const k of c.msParams ?? []) params[k] = Number(params[k]) * o.speed;
    const sandboxDoc = parse(readFileSync(path.join(PROJECT_ROOT, 'config/paper-sandbox.yaml'), 'utf8')) as { symbols: { filters: unknown[] }[] };
    const inputs: BacktestInputs = { c, recording, params, filters: sandboxDoc.symbols[0]?.filters, cancel: cancelLatency(path.join(dir, 'backtest-cancel.txt'), perCancel), ackMs, streamHoldMs, offset, timerMs: 1000 * o.speed, start: Math.round(live.startRec - offset), end: Math.round(window.endMs - offset), dir };
    const backtest = (entry: LatencySpec): Promise<BacktestRun> => runParityBacktest(inputs, entry);
    // The live orders' latencies order by order: both runs start at the same instant, so the n-th
    // order of one is the n-th of the other while their intents agree (a first run at the median
    // finds whether the backtest places some before the live run's first). Where intents part (a
    // strategy that decides on timing, an order one mode's risk gate refused), the values still
    // follow the live run's bursts in time, as paper's do; drawing them at random gave the
    // backtest a burst's latency for isolated orders (24 pp more taker on the 11-minute recording).
    const first = await backtest(entryMs);
    const at = contiguousAt(live.outcome.intents, first.outcome.intents);
    const values = [...Array<number>(Math.max(0, at)).fill(entryMs), ...perOrder];
    const entry: LatencySpec = { file: latencyFile(path.join(dir, 'backtest-entry.txt'), values), order: 'recorded' };
    const bt = await backtest(entry);
    // The same backtest on two clocks (a real exchange's trades consume liquidity at their trade
    // time): how far the sandbox's one clock moves the figures.
    const two = await runParityBacktest({ ...inputs, maxExchangeLagMs: DEFAULT_MAX_EXCHANGE_LAG_MS }, entry);
    const fig = (x: BacktestRun): string => {
      const f = figuresOf(trimmed(x.outcome, window.startMs, window.endMs), x.mark);
      return `filled ${f.filledQty.toPrecision(5)}, taker ${(f.takerShare * 100).toFixed(1)} %, fees ${f.fees.toPrecision(5)}, PnL ${f.pnl.toPrecision(5)}`;
    };
    o.log?.(`${c.name}: backtest on one clock (the sandbox's) ${fig(bt)}; on two clocks ${fig(two)}`);
    o.log?.(`${c.name}: live feed ${feedWall} ms, entry ${median(live.latency.entry) ?? 'n/a'} ms, report ${median(live.latency.ack) ?? 'n/a'} ms, fill report ${fillWall ?? 'n/a'} ms wall, ${median(live.latency.fillReplay) ?? 'n/a'} ms of recording (p90 ${quantile(live.latency.fillReplay, 0.9) ?? 'n/a'}) (${live.latency.entry.length} orders); market answered to market met ${entryMs} ms (p90 ${quantile(measured, 0.9) ?? 'n/a'}, max ${quantile(measured, 1) ?? 'n/a'}) of recording, ${at >= 0 ? 'order by order' : 'in order, intents differ'}; window ${window.startMs}..${window.endMs}, strategies started +${Math.round(live.startRec - window.startMs)} ms (live), +${Math.round(paper.startRec - window.startMs)} ms (paper)`);
    const inWindow = (x: ModeOutcome): ModeOutcome => trimmed(x, window.startMs, window.endMs);
    // Each run's orders replayed through one engine fed as the sandbox's: do they give its fills?
    const sandboxCfg = loadSandboxConfig(path.join(dir, 'live-sandbox.yaml'));
    const engineCheck = { live: fillsDiffer(live.engine.filled, replayOps(sandboxCfg, span.events, live.engine.ops)), backtest: fillsDiffer(bt.engine.filled, replayOps(sandboxCfg, span.events, bt.engine.ops)) };
    // PARITY_DUMP=dir: every run's orders, fills and latencies as JSON, to study a gap offline.
    const dump = process.env.PARITY_DUMP;
    if (dump !== undefined) {
      const run = (x: typeof live) => ({ outcome: x.outcome, latency: x.latency, startRec: x.startRec, ops: x.engine.ops });
      const { c: _c, dir: _d, recording: _r, ...given } = inputs;
      writeFileSync(path.join(dump, `${c.name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ case: c.name, speed: o.speed, window, given, entryMs, perCancel, live: run(live), ...(again ? { again: run(again) } : {}), paper: run(paper), backtest: { outcome: bt.outcome, ops: bt.engine.ops }, backtestTwoClocks: { outcome: two.outcome, mark: two.mark }, mark: bt.mark }));
    }
    return { c, engineCheck, live: inWindow(live.outcome), ...(again ? { liveAgain: inWindow(again.outcome) } : {}), paper: inWindow(paper.outcome), backtest: inWindow(bt.outcome), mark: bt.mark, measured: { feedWallMs: feedWall, entryWallMs: median(live.latency.entry), ackWallMs: median(live.latency.ack), entryMs, ackMs, samples: measured.length, fillWallMs: fillWall, fillReplayMs: median(live.latency.fillReplay), streamHoldMs }, window };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
