/**
 * Reaction time of the live loop (no npm peer does this; absolute figures against goals). A
 * strategy answers every trade with an order and keeps eight bids resting that the market fills,
 * one a trade, 100 trades a second (~300 fills a stretch), placing a bid again on each fill; it
 * runs as `kancil run` composes it (RunSession), on paper and live, against a sandbox in its own
 * process on loopback (bench/reactionSandbox.ts), at 100, 1,000 and 10,000 trades/s, without and
 * with the operator console:
 *  - tick-to-order: a trade frame's bytes reached the bot's process -> the order's request bytes
 *    handed to the socket (live) or the order handed to the simulated venue (paper). The start is
 *    the market socket's read ('data' chunk) that completed the frame: ws hands the frames of one
 *    read to the bot in one synchronous loop, so a frame behind others of its read waits for them,
 *    and that wait is counted (src/exchange/stream/frame-probe.ts). The end is the HTTP
 *    transport's `kancil:http:written`, published as the socket write of the request's last bytes
 *    returns (its 'prefinish'); time the bytes then spend in the kernel is not counted. Beside it,
 *    the former definition on the same orders: the frame handed to the socket's message handler
 *    -> the request's 'finish' (which waits behind every callback queued before the write's);
 *  - fill-to-strategy: the read that brought a fill (live: the user stream's executionReport;
 *    paper: the public trade the simulator filled the bid on, latency model 0) -> the strategy's
 *    handler of that fill; and fill-to-order, that read -> the bid placed again on the fill
 *    written (or handed to the simulator), as tick-to-order ends. The slowest fills are listed
 *    with how long they waited behind the earlier frames of their read (and how many there
 *    were), and the GC pauses and the ledger's WAL restarts (src/store/checkpointer.ts) inside.
 * Both ends of each figure are performance.now() in the bot's process (one clock); a frame that
 * waited in the kernel while the loop was busy elsewhere shows in the event-loop delay reported
 * beside it (perf_hooks), not in the figure.
 * The exchange is pinned to one core and the bot may use every core (bench/reactionPlacement.ts,
 * `taskset`; `REACTION_PIN=0` or no taskset: shared, as the report says): an exchange never runs
 * on all of the bot's cores, and sharing them bills the sandbox's matching to the bot's socket
 * writes; confining the bot to the other core would bill its own GC and ledger threads to it.
 * Each stretch also reports how long the bot's event loop waited, runnable, for a core (Linux's
 * schedstat): other processes on its cores show there, and a large share means the figures are
 * the machine's.
 * Frames and orders are seen through diagnostics channels, which cost one property read when nobody
 * listens. The bot runs in this process, so what the bench records must not survive into the bot's
 * heap: the frame probe classifies each frame where it arrives, by its bytes, and keeps only
 * numbers (trade ids, clientId sequence numbers, times) in typed arrays sized before each stretch
 * (bench/reactionSamples.ts). It costs ~0.3 us per frame on the path (a live stretch's mix of
 * trades, reports and depth, load 8.8; keeping each frame cost ~0.03 us there but added ~0.2 MB of
 * survivors to each scavenge at 1,000 trades/s). GC pauses come from perf_hooks. The ledger is a
 * file in the temp folder, as in a run (`REACTION_LEDGER=memory` for an in-memory one, to compare).
 * Each run of the bot is first warmed, unmeasured, at 1,000 trades/s for `REACTION_WARM_SECONDS`
 * (default 3): a live bot is measured as it runs for days, not in its first seconds. Then
 * `REACTION_SECONDS` sets the measured seconds per rate (default 3; the rates in the order given);
 * `REACTION_MODES` (paper,live) and `REACTION_RATES` (100,1000,10000) pick the runs. Also reported:
 * frame-to-strategy, a trade frame's read -> the strategy's handler, and live the part of
 * tick-to-order spent in the HTTP client (the transport's `kancil:http:made` ->
 * `kancil:http:written`: a free connection, the socket write; src/core/probes.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { constants, monitorEventLoopDelay, PerformanceObserver, type NodeGCPerformanceDetail } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseRunConfig } from '../src/cli/runConfig.js';
import { planConsole, startRunConsole, type RunConsole } from '../src/cli/runConsole.js';
import { runLogger } from '../src/cli/run.js';
import { RunSession, type RunEndpoints } from '../src/cli/runSession.js';
import { Decimal } from '../src/core/decimal.js';
import { frameReceived, httpRequestFinished, httpRequestMade, httpRequestWritten, orderSent, walRestarted, type FrameProbe, type HttpRequestProbe, type OrderSentProbe, type WalRestartProbe } from '../src/core/probes.js';
import { TEST_ACCOUNTS } from '../src/sandbox/test-config.js';
import { defineStrategy, type StrategyPlugin } from '../src/strategy/types.js';
import { coreWaitMs, placeProcesses, type Placement } from './reactionPlacement.js';
import { type Dist, fmt, measure, Samples } from './reactionMeasure.js';
import { classifyFrame, clientSeq, clientSeqInBody, FrameKind } from './reactionSamples.js';
import { type BenchReport } from './report.js';

const RATES = (process.env.REACTION_RATES ?? '100,1000,10000').split(',').map(Number);
/**
 * Trades per second at the resting bid's price (`REACTION_FILL_RATE`, default 100): each fills the
 * bid, which the strategy places again on the fill, so a stretch of 3 s makes ~300 fills, enough
 * for a p99 (a trade that comes before the new bid rests fills nothing; the report counts both).
 */
const FILL_RATE = Number(process.env.REACTION_FILL_RATE ?? 100);
const SECONDS = Number(process.env.REACTION_SECONDS ?? 3);
/**
 * Seconds at WARM_RATE before the first measured stretch, unmeasured: a live bot is judged as it
 * runs for days, its code optimised and its heap grown, not in its first seconds (a second run in
 * one process measured 1.8 ms p99 against 6.9 for the first).
 */
const WARM_SECONDS = Number(process.env.REACTION_WARM_SECONDS ?? 3);
const WARM_RATE = 1000;
/**
 * Console off and on, in this order. `REACTION_CONSOLE=on,off` runs it on first: the second run of
 * a process starts with its code optimised and its heap grown, so the order tells apart what the
 * console does from what coming second does.
 */
const CONSOLE = (process.env.REACTION_CONSOLE ?? 'off,on').split(',').map((c) => {
  if (c !== 'on' && c !== 'off') throw new Error(`REACTION_CONSOLE=${process.env.REACTION_CONSOLE ?? ''}: "${c}" is not on or off`);
  return c === 'on';
});
const GOALS = { tickP99At1000: 1, tickP99At10000: 5, fillP99: 10 } as const;
const dir = path.dirname(fileURLToPath(import.meta.url));

const S = new Samples();

/** Price of the trades the strategy answers (bench/reactionSandbox.ts makes them). */
const TICK_PRICE = '60000';
const TICK = new Decimal(TICK_PRICE);
const FILL_PRICE = new Decimal('59000');
const ANSWER_PRICE = new Decimal('59990');
const QTY = new Decimal('0.001');

/**
 * Answers of the strategy still on their way (sent, no final state yet). Beyond MAX_IN_FLIGHT a
 * trade is not answered: at 10,000 trades/s no exchange (nor the sandbox beside the bot on two
 * cores) takes an order per trade, and orders queued for a connection would measure the
 * exchange's round trip, not the bot. Half the REST pool's 8 connections: the user stream's
 * EXPIRED reaches the strategy before the REST answer frees the connection, so with one answer
 * per connection 45 % of the orders found the pool full (measured at 1,000 trades/s). The report
 * gives the share of trades answered and the time spent in the HTTP client.
 */
const MAX_IN_FLIGHT = 4;
let inFlight = new Set<string>();
let seenTicks = 0;

/**
 * Bids kept resting at 59000, each filled whole by one trade there, oldest first: with one, a
 * trade that came before its replacement rested filled nothing, and at 10,000 trades/s, the
 * sandbox busy making them, 85 % of those trades did so.
 */
const RESTING_BIDS = 8;

/** Answers each 60000 trade with an IOC bid that cannot trade; keeps bids at 59000 resting. */
const reaction = defineStrategy({
  name: 'reaction',
  description: 'bench: an order for every trade, one bid resting for the market to fill',
  params: z.object({}),
  create(ctx) {
    const bids = new Set<string>();
    const placeBid = (): string => {
      const id = ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', price: FILL_PRICE, quantity: QTY });
      bids.add(id);
      return id;
    };
    return {
      onEvent(e) {
        if (e.type === 'fill' && bids.delete(e.clientId)) {
          if (S.on) S.handled.push(Number(e.tradeId), performance.now());
          const id = placeBid();
          if (S.on) S.refills.push(clientSeq(id), Number(e.tradeId));
          return;
        }
        if (e.type === 'orderUpdate' && (e.state === 'EXPIRED' || e.state === 'REJECTED' || e.state === 'CANCELED' || e.state === 'FILLED')) inFlight.delete(e.clientId);
        if (e.type === 'intentRejected' && e.intent.kind === 'place') inFlight.delete(e.intent.clientId);
        if (e.type === 'trade' && e.price.eq(TICK)) {
          if (S.on) seenTicks++;
          if (S.on) S.tickAt.push(Number(e.tradeId), performance.now());
          if (inFlight.size >= MAX_IN_FLIGHT) return;
          const id = ctx.place({ symbol: 'BTC_USDT', side: 'BUY', orderType: 'LIMIT', timeInForce: 'IOC', price: ANSWER_PRICE, quantity: QTY });
          inFlight.add(id);
          if (S.on) S.answered.push(clientSeq(id), Number(e.tradeId));
          if (bids.size < RESTING_BIDS) placeBid();
        }
      },
    };
  },
});

/** The exchange process; `rate` sets its trades per second. */
async function startExchange(placement: Placement): Promise<{ urls: RunEndpoints; rate(ticks: number, fills: number): Promise<void>; stop(): Promise<void> }> {
  const [prefix, ...prefixArgs] = placement.exchangePrefix;
  const node = [process.execPath, '--import', 'tsx', path.join(dir, 'reactionSandbox.ts')];
  const child: ChildProcessWithoutNullStreams = prefix === undefined ? spawn(node[0] as string, node.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] }) : spawn(prefix, [...prefixArgs, ...node], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (l) => waiting.shift()?.(l));
  const next = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
  const urls = JSON.parse(await next()) as RunEndpoints;
  return {
    urls,
    rate: async (ticks, fills) => {
      const ok = next();
      child.stdin.write(`${ticks} ${fills}\n`);
      await ok;
    },
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await exited;
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One run of the bot (paper or live, console on or off) over the three rates. */
async function runMode(exchange: Awaited<ReturnType<typeof startExchange>>, mode: 'paper' | 'live', withConsole: boolean, lines: string[]): Promise<{ tick: Map<number, Dist>; fill: Dist[] }> {
  // A ledger file as a run has (WAL): every order is journalled before it is sent, and an
  // in-memory ledger would leave out the WAL writes of each commit.
  const ledgerDir = mkdtempSync(path.join(tmpdir(), 'kancil-reaction-'));
  const config = parseRunConfig(
    {
      mode,
      name: `reaction-${mode}`,
      exchange: { base_url: exchange.urls.base_url, market_url: exchange.urls.market_url, stream_url: exchange.urls.stream_url },
      strategies: [{ name: 'reaction', plugin: 'reaction', symbols: ['BTC_USDT'], budget: { USDT: '500000', BTC: '5' } }],
      storage: { path: process.env.REACTION_LEDGER === 'memory' ? ':memory:' : path.join(ledgerDir, 'ledger.db') },
      run: { timerMs: 60_000, statusIntervalSec: 60, cancelOnShutdown: true },
      logging: { level: 'warn' },
      ...(mode === 'paper' ? { paper: { latency: { entryMs: 0, cancelMs: 0, ackMs: 0, streamHoldMs: 0 }, balances: { USDT: '100000000', BTC: '100' } } } : {}),
      ...(withConsole ? { console: { port: 0 } } : {}),
    },
    `reaction-${mode}.yaml`,
  );
  const quiet = new Writable({ write: (_c, _e, cb) => cb() });
  const log = runLogger('warn', quiet);
  inFlight = new Set<string>();
  const session = await RunSession.start({
    config,
    endpoints: exchange.urls,
    credentials: { apiKey: TEST_ACCOUNTS.alice.apiKey, apiSecret: TEST_ACCOUNTS.alice.secret, legacyKey: TEST_ACCOUNTS.alice.apiKey, legacySecret: TEST_ACCOUNTS.alice.secret },
    plugins: new Map<string, StrategyPlugin>([['reaction', reaction]]),
    log,
    bookReadyTimeoutMs: 10_000,
  });
  let con: RunConsole | undefined;
  let feed: AbortController | undefined;
  if (withConsole) {
    const token = 'reaction-bench-console-token-0123456789';
    const plan = planConsole(config, false, { KANCIL_CONSOLE_TOKEN: token });
    if (plan) con = await startRunConsole(session, { plan, log, requestStop: () => undefined });
    // A browser on the live feed: the console's per-event work is part of the loop.
    feed = new AbortController();
    if (con) void followFeed(`${con.url}/api/events`, token, feed.signal);
  }
  const tick = new Map<number, Dist>();
  const fill: Dist[] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  try {
    await exchange.rate(WARM_RATE, FILL_RATE);
    await sleep(WARM_SECONDS * 1000);
    for (const rate of RATES) {
      await exchange.rate(rate, FILL_RATE);
      await sleep(700);
      S.clear(rate, FILL_RATE, SECONDS);
      seenTicks = 0;
      loop.reset();
      loop.enable();
      const waitedBefore = coreWaitMs();
      S.on = true;
      await sleep(SECONDS * 1000);
      S.on = false;
      S.endedAt = performance.now();
      const waitedAfter = coreWaitMs();
      loop.disable();
      await exchange.rate(0, 0);
      await sleep(1000);
      const m = measure(S, mode === 'paper');
      tick.set(rate, m.tick);
      fill.push(m.fill);
      const pad = `${' '.repeat(mode.length + (withConsole ? 9 : 0))} ${' '.repeat(6)}           `;
      lines.push(`${mode}${withConsole ? ' +console' : ''} ${String(rate).padStart(6)} trades/s  tick-to-order ${fmt(m.tick)}, ${seenTicks > 0 ? ((100 * S.answered.n) / seenTicks).toFixed(0) : 0} % of ${seenTicks} trades answered`);
      if (mode === 'live') lines.push(`${pad}  of it in the HTTP client (request made -> bytes written) ${fmt(m.client)}`);
      lines.push(`${pad}  former definition (frame handed to its handler -> ${mode === 'live' ? "the request's 'finish'" : 'sent'}) ${fmt(m.former)}`);
      lines.push(`${pad}frame-to-strategy ${fmt(m.heard)}`);
      lines.push(`${pad}fill-to-strategy ${fmt(m.fill)}, ${S.handled.n} fills of ${S.tradeFrames.n} trades at the bid's price`);
      lines.push(`${pad}fill-to-order (the bid placed again on the fill) ${fmt(m.fillToOrder)}`);
      if (m.slowFills !== '') lines.push(`${pad}slowest fills, ms: ${m.slowFills}`);
      const waited = waitedBefore !== undefined && waitedAfter !== undefined ? `; waited for a core ${(waitedAfter - waitedBefore).toFixed(0)} of ${SECONDS * 1000} ms` : '';
      lines.push(`${pad}${m.gc}; event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(1)} max ${(loop.max / 1e6).toFixed(1)} ms${waited}`);
      if (S.dropped > 0) lines.push(`${pad}${S.dropped} samples dropped (records full): the figures leave them out`);
    }
  } finally {
    loop.disable();
    feed?.abort();
    await con?.close();
    await session.stop('bench done');
    rmSync(ledgerDir, { recursive: true, force: true });
  }
  return { tick, fill };
}

/** Reads the console's live feed until aborted (its bytes are discarded). */
async function followFeed(url: string, token: string, signal: AbortSignal): Promise<void> {
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal });
    const reader = res.body?.getReader();
    if (!reader) return;
    for (;;) {
      const r = await reader.read();
      if (r.done) return;
    }
  } catch {
    // aborted at the end of the run
  }
}

/** Runs paper and live, console off and on, and checks the goals. */
export async function run(): Promise<BenchReport> {
  const lines: string[] = [];
  const tickPrice = Buffer.from(TICK_PRICE);
  const tradeId = new Float64Array(1);
  // Frames of one read come in one synchronous run, with nothing between them: a frame with the
  // read time of the one before it came in the same read.
  let lastRead = Number.NaN;
  let ahead = 0;
  const onFrame = (m: unknown): void => {
    if (!S.on) return;
    const { data, readAt, at } = m as FrameProbe;
    if (readAt === lastRead) ahead++;
    else {
      lastRead = readAt;
      ahead = 0;
    }
    if (!Buffer.isBuffer(data)) return;
    const kind = classifyFrame(data, tickPrice, tradeId);
    if (kind === FrameKind.tick) {
      S.tickFrames.push(tradeId[0] as number, readAt);
      S.tickHandled.push(tradeId[0] as number, at);
    } else if (kind === FrameKind.trade) S.tradeFrames.push(0, readAt);
    else if (kind === FrameKind.fill) {
      S.fillFrames.push(tradeId[0] as number, readAt);
      S.fillHandled.push(tradeId[0] as number, at);
      S.fillAhead.push(tradeId[0] as number, ahead);
    }
  };
  // Sends are noted after the window too: an answer decided in it may leave after it ends.
  const onSent = (m: unknown): void => S.sent.push(clientSeq((m as OrderSentProbe).clientId), (m as OrderSentProbe).at);
  const onBody = (m: unknown): void => S.sent.push(clientSeqInBody((m as HttpRequestProbe).body), (m as HttpRequestProbe).at);
  const onCreate = (m: unknown): void => S.made.push(clientSeqInBody((m as HttpRequestProbe).body), (m as HttpRequestProbe).at);
  const onFinish = (m: unknown): void => S.finished.push(clientSeqInBody((m as HttpRequestProbe).body), (m as HttpRequestProbe).at);
  const onRestart = (m: unknown): void => {
    const { start, end } = m as WalRestartProbe;
    S.walRestarts.push({ start, ms: end - start });
  };
  frameReceived.subscribe(onFrame);
  walRestarted.subscribe(onRestart);
  orderSent.subscribe(onSent);
  httpRequestWritten.subscribe(onBody);
  httpRequestMade.subscribe(onCreate);
  httpRequestFinished.subscribe(onFinish);
  const gc = new PerformanceObserver((list) => {
    if (S.on) for (const e of list.getEntries()) S.gc.push({ start: e.startTime, ms: e.duration, minor: (e as unknown as { detail?: NodeGCPerformanceDetail }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR });
  });
  gc.observe({ entryTypes: ['gc'] });
  const placement = placeProcesses();
  const exchange = await startExchange(placement);
  const verdicts: string[] = [];
  let ok = true;
  try {
    for (const mode of (process.env.REACTION_MODES ?? 'paper,live').split(',') as ('paper' | 'live')[]) {
      for (const withConsole of CONSOLE) {
        const r = await runMode(exchange, mode, withConsole, lines);
        const tag = `${mode}${withConsole ? ' +console' : ''}`;
        const check = (what: string, value: number, goal: number): void => {
          const hit = Number.isFinite(value) && value <= goal;
          if (!hit) ok = false;
          verdicts.push(`${hit ? 'OK  ' : 'MISS'} ${tag}: ${what} ${Number.isFinite(value) ? value.toFixed(3) : 'n/a'} ms (goal <= ${goal})`);
        };
        check('tick-to-order p99 at 1,000/s', r.tick.get(1000)?.p99 ?? NaN, GOALS.tickP99At1000);
        check('tick-to-order p99 at 10,000/s', r.tick.get(10_000)?.p99 ?? NaN, GOALS.tickP99At10000);
        check('fill-to-strategy p99 (worst rate)', Math.max(...r.fill.map((d) => d.p99)), GOALS.fillP99);
      }
    }
  } finally {
    await exchange.stop();
    gc.disconnect();
    frameReceived.unsubscribe(onFrame);
    walRestarted.unsubscribe(onRestart);
    orderSent.unsubscribe(onSent);
    httpRequestWritten.unsubscribe(onBody);
    httpRequestMade.unsubscribe(onCreate);
    httpRequestFinished.unsubscribe(onFinish);
  }
  lines.push(...verdicts);
  lines.push(`${placement.describe}; ${WARM_SECONDS} s at ${WARM_RATE} trades/s unmeasured, then ${SECONDS} s measured per rate after 0.7 s at it; fills ${FILL_RATE}/s; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${new Date().toISOString().slice(0, 10)}`);
  return { name: 'reaction', lines, ok };
}
