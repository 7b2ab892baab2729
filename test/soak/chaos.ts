/**
 * The chaos soak: `kancil run` (a child process, live mode) trades two symbols (a type 1 one over
 * the listen token, a type 3 one over a listen key, legacy /v1 as fallback) against a sandbox on
 * 127.0.0.1 while a seeded schedule injects every fault the sandbox offers, corrupts REST answers
 * through a proxy, and SIGKILLs and restarts the bot. Then the faults stop, a last clean run
 * reconciles and stops, and the sandbox's own records are compared with the bot's ledger.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { Decimal } from '../../src/core/decimal.js';
import { mulberry32 } from '../../src/core/random.js';
import { CancelFaultMode, resolveSandboxConfig, startSandbox, type RunningSandbox, type SandboxConfigInput } from '../../src/sandbox/index.js';
import { testFilters } from '../../src/sandbox/test-config.js';
import { Ledger } from '../../src/store/Ledger.js';
import { startBot, type BotProcess } from '../support/botProcess.js';
import { corruptingProxy, type CorruptingProxy } from './corruptingProxy.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PLUGIN = path.join(here, '..', 'integration', 'pipeline-restart-plugin.ts');

/** Test credentials of the local sandbox only. */
const BOT = { id: 'soak', apiKey: 'soakBotKey-0123456789abcdef0123456789abcdef', secret: 'soakBotSecret-0123456789abcdef0123456789ab' } as const;
const BALANCES = { BTC: '100', ETH: '100', IDR: '1000000000000' } as const;
const SYMBOLS = ['BTC_IDR', 'ETH_IDR'] as const;
/** The bot's request timeout; the delay fault goes past it. */
const TIMEOUT_MS = 1500;

/** Options of one soak. */
export interface ChaosOptions {
  readonly seed: number;
  /** How long faults are injected. */
  readonly durationMs: number;
  /** Mean time between two faults. */
  readonly faultEveryMs: number;
  /** Mean time between two SIGKILLs. */
  readonly killEveryMs: number;
  /** Progress lines (optional). */
  readonly log?: (line: string) => void;
}

/** What the soak did and what the comparison found. */
export interface ChaosReport {
  readonly seed: number;
  readonly orders: number;
  readonly fills: number;
  readonly faults: Readonly<Record<string, number>>;
  readonly faultCount: number;
  readonly kills: number;
  /** Exits nobody asked for (restarted), with their codes. */
  readonly unexpectedExits: readonly (number | null)[];
  /** Exit codes of the SIGTERM stops (0 expected). */
  readonly stopCodes: readonly (number | null)[];
  readonly duplicateOrders: number;
  readonly lostFills: number;
  readonly orphanOpenOrders: number;
  readonly garbageRows: number;
  readonly balanceMismatches: number;
  /** The first few findings, for a failure message. */
  readonly details: readonly string[];
  /** Output tail of the last bot, for a failure message. */
  readonly lastOutput: string;
}

function sandboxDocument(seed: number): SandboxConfigInput {
  return {
    limits: {
      requestWeight: [{ intervalNum: 1, intervalLetter: 'M', limit: 200_000 }],
      orders: [{ intervalNum: 10, intervalLetter: 'S', limit: 5_000 }],
      // A real ban lasts minutes; here a client that earns one is stalled for seconds, still counted.
      banBaseSec: 2,
    },
    symbols: [
      { symbol: 'BTC_IDR', type: 1, quotePrecision: 2, filters: testFilters('1', '0.00001', '20000', 500), lastPrice: '1000000000' },
      { symbol: 'ETH_IDR', type: 3, quotePrecision: 2, filters: testFilters('1', '0.00001', '20000', 500), lastPrice: '1000000000' },
    ],
    accounts: [{ ...BOT, balances: { ...BALANCES } }],
    market: SYMBOLS.map((symbol, i) => ({ symbol, synthetic: { seed: seed + i, midPrice: '1000000000', levels: 10, intervalMs: 50, tradeProbability: 0.3, maxLevelSteps: 50 } })),
  };
}

/** Runs one soak and compares; never throws for a finding (the report carries it). */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const rnd = mulberry32(o.seed);
  const log = o.log ?? ((): void => undefined);
  const dir = mkdtempSync(path.join(tmpdir(), 'kancil-chaos-'));
  const sandbox = await startSandbox(resolveSandboxConfig(sandboxDocument(o.seed), 'chaos-soak', process.cwd()));
  const proxy = await corruptingProxy(sandbox.urls.base_url);
  const ledgerPath = path.join(dir, 'ledger.db');
  const configFile = path.join(dir, 'run.yaml');
  writeFileSync(
    configFile,
    stringify({
      mode: 'live',
      name: 'chaos',
      exchange: {
        base_url: proxy.url,
        market_url: sandbox.urls.market_url,
        depth_url: sandbox.urls.depth_url,
        stream_url: sandbox.urls.stream_url,
        stream_url_new: sandbox.urls.stream_url_new,
        ws_api_url: sandbox.urls.ws_api_url,
        legacy_base_url: sandbox.urls.legacy_base_url,
        recvWindow: 1000,
        timeoutMs: TIMEOUT_MS,
      },
      strategies: SYMBOLS.map((symbol) => ({ name: `churn-${symbol.slice(0, 3).toLowerCase()}`, plugin: PLUGIN, symbols: [symbol], params: { symbol }, budget: { IDR: '400000000000', [symbol.slice(0, 3)]: '40' } })),
      storage: { path: ledgerPath },
      run: { timerMs: 25, statusIntervalSec: 60, cancelOnShutdown: true },
      logging: { level: 'info' },
    }),
  );
  const env = { KANCIL_API_KEY: BOT.apiKey, KANCIL_API_SECRET: BOT.secret, KANCIL_LEGACY_API_KEY: BOT.apiKey, KANCIL_LEGACY_API_SECRET: BOT.secret };
  const faults: Record<string, number> = {};
  const unexpectedExits: (number | null)[] = [];
  const stopCodes: (number | null)[] = [];
  let kills = 0;
  let bot: BotProcess | undefined;
  let expectingExit = false;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  /** While true, a bot that exits by itself is restarted (a supervisor's job). */
  let supervising = true;
  const launch = (): BotProcess => {
    const b = startBot(configFile, env);
    void b.exit.then((code) => {
      if (bot === b && !expectingExit) {
        unexpectedExits.push(code);
        log(`bot exited by itself with ${String(code)}${supervising ? '; restarting' : ''}. Its last lines:\n${b.output().slice(-1500)}`);
        if (supervising) bot = launch();
      }
    });
    return b;
  };
  /** Waits for "running" (a starting process has no SIGTERM handler yet), then SIGTERM; the exit code. */
  const stop = async (b: BotProcess): Promise<number | null> => {
    if (b.alive() && !/"msg":"running"/.test(b.output())) await b.waitForOutput(/"msg":"running"/, 30_000);
    expectingExit = true;
    if (b.alive()) b.child.kill('SIGTERM');
    const code = await b.exit;
    expectingExit = false;
    if (code !== 0) log(`SIGTERM stop ended with ${String(code)} (signal ${String(b.child.signalCode)}). Last lines:\n${b.output().slice(-3000)}`);
    return code;
  };

  try {
    bot = launch();
    await bot.waitForOutput(/"msg":"running"/, 30_000);
    const nextKind = faultRounds(rnd);
    const end = Date.now() + o.durationMs;
    let nextKill = Date.now() + o.killEveryMs * (0.5 + rnd());
    while (Date.now() < end) {
      await sleep(o.faultEveryMs * (0.5 + rnd()));
      if (Date.now() >= nextKill && bot?.alive()) {
        expectingExit = true;
        const dying = bot;
        dying.child.kill('SIGKILL');
        await dying.exit;
        kills++;
        expectingExit = false;
        await sleep(200 + rnd() * 600);
        bot = launch();
        nextKill = Date.now() + o.killEveryMs * (0.5 + rnd());
        continue;
      }
      const kind = inject(sandbox, proxy, rnd, nextKind, later);
      faults[kind] = (faults[kind] ?? 0) + 1;
    }
    for (const t of timers) clearTimeout(t);
    timers.clear();
    sandbox.faults.clear();
    sandbox.faults.setMaintenance(undefined);
    sandbox.weights.reset();
    // Stop the faulted run gracefully, then one clean run reconciles whatever it left and stops.
    supervising = false;
    stopCodes.push(await stop(bot as BotProcess));
    bot = launch();
    await bot.waitForOutput(/"msg":"running"/, 30_000);
    await sleep(1500);
    stopCodes.push(await stop(bot));
    return { ...compare(sandbox, ledgerPath), seed: o.seed, faults, faultCount: Object.values(faults).reduce((a, b) => a + b, 0), kills, unexpectedExits, stopCodes, lastOutput: (bot as BotProcess).output().slice(-4000) };
  } finally {
    supervising = false;
    for (const t of timers) clearTimeout(t);
    if (bot?.alive()) bot.child.kill('SIGKILL');
    await proxy.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Every fault kind the soak injects. */
export const FAULT_KINDS = [
  '5xx-before',
  '5xx-after',
  'blackhole',
  'delay-past-timeout',
  'drop-sockets',
  'expire-listen-key',
  'expire-listen-token',
  'maintenance',
  'legacy-503-after-accept',
  '429',
  '418',
  '403',
  'cancel-fault',
  'corrupt-payload',
  'depth-gap',
  'reorder-user-events',
] as const;

/** One fault kind of {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * Fault kinds in seeded shuffled rounds, each kind once a round: a soak of a few dozen faults
 * meets every kind (independent draws left one out in a minute of faults), in an order the seed sets.
 */
function faultRounds(rnd: () => number): () => FaultKind {
  const round: FaultKind[] = [];
  return () => {
    if (round.length === 0) {
      round.push(...FAULT_KINDS);
      for (let i = round.length - 1; i > 0; i--) {
        const j = Math.floor(rnd() * (i + 1));
        [round[i], round[j]] = [round[j] as FaultKind, round[i] as FaultKind];
      }
    }
    return round.pop() as FaultKind;
  };
}

/** Injects one fault of the kind `nextKind` gives; returns its kind. */
function inject(sbx: RunningSandbox, proxy: CorruptingProxy, rnd: () => number, nextKind: () => FaultKind, later: (ms: number, fn: () => void) => void): FaultKind {
  const f = sbx.faults;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const count = 1 + Math.floor(rnd() * 2);
  const kind = nextKind();
  switch (kind) {
    case '5xx-before':
      f.failOrders('before', { scope: 'open', count, status: pick([500, 502, 503]) });
      break;
    case '5xx-after':
      f.failOrders('after', { scope: 'open', count, status: pick([500, 502, 503, 504]) });
      break;
    case 'blackhole':
      f.blackhole({ scope: 'open', pathPrefix: pick(['/open/v1/orders', '/open/v1/account', '/open/v1/common']), count });
      break;
    case 'delay-past-timeout':
      f.delay(TIMEOUT_MS + 500, { scope: 'open', pathPrefix: '/open/v1/orders', count });
      break;
    case 'drop-sockets':
      f.dropConnections();
      break;
    case 'expire-listen-key':
      for (const k of sbx.registry.listenKeysOf(BOT.id)) f.expireListenKey(k);
      break;
    case 'expire-listen-token':
      for (const t of sbx.registry.tokensOf(BOT.id)) f.expireListenToken(t);
      break;
    case 'maintenance':
      f.setMaintenance('open');
      later(500 + rnd() * 1500, () => f.setMaintenance(undefined));
      break;
    case 'legacy-503-after-accept':
      // The open API goes into maintenance so orders take the legacy route, whose answer is lost.
      f.setMaintenance('open');
      f.failOrders('after', { scope: 'legacy', count: 1, status: 503 });
      later(1500 + rnd() * 1000, () => f.setMaintenance(undefined));
      break;
    case '429':
      f.forceRateLimit(429, 1 + Math.floor(rnd() * 2));
      break;
    case '418':
      f.forceRateLimit(418, 1 + Math.floor(rnd() * 2));
      break;
    case '403':
      f.forceRateLimit(403, 1);
      break;
    case 'cancel-fault':
      f.failCancels(pick(Object.values(CancelFaultMode)), { scope: 'open', count });
      break;
    case 'corrupt-payload':
      proxy.corrupt(count);
      break;
    case 'depth-gap':
      f.skipDepthUpdates(pick(SYMBOLS), count);
      break;
    case 'reorder-user-events':
      f.reorderUserEvents(2 + count);
      break;
    default: {
      const never: never = kind;
      throw new Error(`unknown fault ${String(never)}`);
    }
  }
  return kind;
}

/** The sandbox's records against the ledger's. */
function compare(sbx: RunningSandbox, ledgerPath: string): Omit<ChaosReport, 'seed' | 'faults' | 'faultCount' | 'kills' | 'unexpectedExits' | 'stopCodes' | 'lastOutput'> {
  const details: string[] = [];
  const note = (s: string): void => void (details.length < 20 && details.push(s));
  const ledger = Ledger.open(ledgerPath);
  try {
    // Every order and trade, a page of 1000 (the most a query gives) at a time, oldest first.
    const exOrders = SYMBOLS.flatMap((s) => allPages((fromId) => sbx.engine.allOrders(BOT.id, s, { fromId, direct: 'prev', limit: 1000 }), (x) => Number(x.orderId)));
    const exTrades = SYMBOLS.flatMap((s) => allPages((fromId) => sbx.engine.accountTrades(BOT.id, s, { fromId, direct: 'prev', limit: 1000 }), (t) => Number(t.tradeId)));
    const lOrders = ledger.orders();
    const lFills = ledger.fills();
    // Duplicate orders: one intent (clientId) placed more than once on the exchange.
    const byClient = new Map<string, number>();
    for (const x of exOrders) byClient.set(x.clientId, (byClient.get(x.clientId) ?? 0) + 1);
    let duplicateOrders = 0;
    for (const [id, n] of byClient) {
      if (n > 1) {
        duplicateOrders += n - 1;
        note(`duplicate: clientId ${id} placed ${n} times`);
      }
    }
    // An exchange order no ledger row names (by clientId, or by orderId for a legacy order, which
    // carries the exchange's own id) was placed behind the bot's back: a duplicate of some intent.
    const lByClient = new Set(lOrders.map((l) => l.clientId));
    const lByOrderId = new Set(lOrders.map((l) => l.orderId).filter((x): x is string => x !== undefined));
    for (const x of exOrders) {
      if (!lByClient.has(x.clientId) && !lByOrderId.has(x.orderId)) {
        duplicateOrders++;
        note(`untracked exchange order ${x.orderId} (${x.clientId}, ${x.status})`);
      }
    }
    // Lost fills: an exchange trade of the account that the ledger does not hold.
    const key = (orderId: string, tradeId: string | number): string => `${orderId}/${String(tradeId)}`;
    const fillsByKey = new Map(lFills.map((f) => [key(f.orderId, f.tradeId), f]));
    let lostFills = 0;
    for (const t of exTrades) {
      if (!fillsByKey.has(key(t.orderId, t.tradeId))) {
        lostFills++;
        note(`lost fill: trade ${String(t.tradeId)} of order ${t.orderId} (${t.qty.toString()} @ ${t.price.toString()})`);
      }
    }
    // Orphans: open on the exchange after the last stop, or live in the ledger but not on the exchange.
    const exOpen = SYMBOLS.flatMap((s) => sbx.engine.openOrders(BOT.id, s));
    let orphanOpenOrders = exOpen.length;
    for (const x of exOpen) note(`orphan: ${x.clientId} still open on the exchange`);
    const exByClient = new Map(exOrders.map((x) => [x.clientId, x]));
    const exByOrderId = new Map(exOrders.map((x) => [x.orderId, x]));
    for (const l of lOrders) {
      if (['PENDING', 'UNKNOWN', 'NEW', 'PARTIALLY_FILLED'].includes(l.state)) {
        orphanOpenOrders++;
        note(`orphan: ${l.clientId} left ${l.state} in the ledger`);
      }
    }
    // Garbage: ledger rows the exchange contradicts (a fill it never made or with other amounts,
    // an order whose id, state or executed quantity differ, an order it never had that is not closed as refused).
    const exTradeByKey = new Map(exTrades.map((t) => [key(t.orderId, t.tradeId), t]));
    let garbageRows = 0;
    for (const f of lFills) {
      const t = exTradeByKey.get(key(f.orderId, f.tradeId));
      if (!t || !t.qty.eq(f.qty) || !t.price.eq(f.price) || !t.commission.eq(f.commission)) {
        garbageRows++;
        note(`garbage fill: trade ${String(f.tradeId)} of order ${f.orderId} ${t ? 'differs from the exchange' : 'unknown to the exchange'}`);
      }
    }
    for (const l of lOrders) {
      const x = exByClient.get(l.clientId) ?? (l.orderId !== undefined ? exByOrderId.get(l.orderId) : undefined);
      if (!x) {
        if (l.state !== 'REJECTED' || !l.cumQty.isZero()) {
          garbageRows++;
          note(`garbage order: ${l.clientId} ${l.state} unknown to the exchange`);
        }
        continue;
      }
      if (l.orderId !== x.orderId || l.state !== x.status || !l.cumQty.eq(x.executedQty)) {
        garbageRows++;
        note(`garbage order: ${l.clientId} ledger ${String(l.orderId)} ${l.state} ${l.cumQty.toString()} vs exchange ${x.orderId} ${x.status} ${x.executedQty.toString()}`);
      }
    }
    // Balances: the start plus every ledger fill must be what the exchange holds.
    const expected = new Map(Object.entries(BALANCES).map(([a, v]) => [a, new Decimal(v)]));
    const add = (asset: string, v: Decimal): void => void expected.set(asset, (expected.get(asset) ?? new Decimal(0)).plus(v));
    for (const f of lFills) {
      const [base, quote] = f.symbol.split('_') as [string, string];
      const buy = f.side === 'BUY';
      add(base, buy ? f.qty : f.qty.neg());
      add(quote, buy ? f.quoteQty.neg() : f.quoteQty);
      if (f.commissionAsset) add(f.commissionAsset, f.commission.neg());
    }
    let balanceMismatches = 0;
    for (const b of sbx.engine.balances(BOT.id)) {
      const total = b.free.plus(b.locked);
      const want = expected.get(b.asset) ?? new Decimal(0);
      if (!total.eq(want)) {
        balanceMismatches++;
        note(`balance ${b.asset}: exchange ${total.toString()}, ledger says ${want.toString()}`);
      }
    }
    return { orders: exOrders.length, fills: exTrades.length, duplicateOrders, lostFills, orphanOpenOrders, garbageRows, balanceMismatches, details };
  } finally {
    ledger.close();
  }
}

/** Pages through a query that gives at most 1000 rows from an id on, ascending. */
function allPages<T>(query: (fromId: number) => readonly T[], id: (row: T) => number): T[] {
  const out: T[] = [];
  for (let from = 0; ; ) {
    const rows = query(from);
    out.push(...rows);
    const last = rows.at(-1);
    if (rows.length < 1000 || last === undefined) return out;
    from = id(last) + 1;
  }
}

/** The report as the lines a soak prints. */
export function formatReport(r: ChaosReport): string {
  const faults = Object.entries(r.faults)
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `chaos soak seed ${r.seed}: ${r.orders} orders, ${r.fills} fills, ${r.faultCount} faults (${faults}), ${r.kills} kills`,
    `duplicate orders ${r.duplicateOrders}, lost fills ${r.lostFills}, orphan open orders ${r.orphanOpenOrders}, garbage rows ${r.garbageRows}, balance mismatches ${r.balanceMismatches}`,
    `unexpected exits ${r.unexpectedExits.length}${r.unexpectedExits.length ? ` (codes ${r.unexpectedExits.join(', ')})` : ''}, stop exit codes ${r.stopCodes.join(', ')}`,
    ...r.details.map((d) => `  ${d}`),
  ].join('\n');
}
