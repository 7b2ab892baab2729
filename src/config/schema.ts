/**
 * The YAML run configuration as a zod schema: one file describes a live, paper or backtest run.
 * The same schema is published as config/schema.json (see ./jsonSchema.ts) so editors autocomplete
 * and check config files. Objects are strict: a misspelt key is an error naming its path, not a
 * silently ignored setting. Decimal values are strings (or plain YAML numbers) and stay strings
 * here; they are parsed into Decimal where they are used.
 */
import { z } from 'zod';
import { MAX_TIMER_MS } from '../core/longTimer.js';
import { DURATION_PATTERN } from './duration.js';

// zod compiles an object schema's parser (new Function) on its first parse, which only pays for
// itself over many parses; a run parses its config, plugin params and grid once (~5 ms CPU less
// at every start interpreted). Process-wide: no schema here parses data on a hot path.
z.config({ jitless: true });

/**
 * A period or delay in ms that becomes a Node timer, so at most what one timer holds (a longer
 * one would fire at once); the error gives the allowed range.
 */
export function timerMs(min: number): z.ZodNumber {
  return z
    .number()
    .int()
    .min(min)
    .max(MAX_TIMER_MS, { error: `expected ${min} to ${MAX_TIMER_MS} ms (about 24.8 days, what one timer holds)` });
}

/** As {@link timerMs}, in seconds (any positive number). */
export function timerSec(): z.ZodNumber {
  const max = Math.floor(MAX_TIMER_MS / 1000);
  return z.number().positive().max(max, { error: `expected more than 0 and at most ${max} s (about 24.8 days, what one timer holds)` });
}

/** A non-negative decimal written as a string ("0.001") or a YAML number (0.001). */
export const decimalValue = z
  .union([z.string().regex(/^\d+(\.\d+)?$/, 'expected a non-negative decimal such as "0.001"'), z.number().nonnegative().finite()])
  .transform((v) => (typeof v === 'number' ? v.toString() : v))
  .refine((v) => /^\d+(\.\d+)?$/.test(v), 'expected a plain decimal (no exponent)');

/** A symbol in BASE_QUOTE form. */
export const symbolName = z.string().regex(/^[A-Z0-9]+_[A-Z0-9]+$/, 'expected BASE_QUOTE, e.g. BTC_IDR');

// The pattern is what the JSON schema shows editors; a URL must also parse (`http://[::1` does not).
const url = z.string().regex(/^(https?|wss?):\/\/[^\s]+$/, 'expected an http(s):// or ws(s):// URL').refine((v) => URL.canParse(v), 'expected a URL that parses (check the brackets and the port)');

/** Exchange addresses, named as the spec's placeholders. */
export const exchangeSchema = z.lazy(() =>
  z.strictObject({
    base_url: url.describe('main REST host: account, order, wallet, listen key endpoints'),
    market_url: url.describe('market data of symbol type 1 and execution rules'),
    depth_url: url.optional().describe('market data of symbol type 3'),
    stream_url: url.describe('WebSocket host for symbol type 1'),
    stream_url_next: url.optional().describe('WebSocket host for symbol type 2'),
    stream_url_new: url.optional().describe('WebSocket host for symbol type 3'),
    ws_api_url: url.optional().describe('WebSocket API endpoint (/ws-api/v3)'),
    legacy_base_url: url.optional().describe('first-generation /v1 REST host (fallback for order entry)'),
    recvWindow: z.number().int().positive().max(60_000).default(5000).describe('signed request window in ms (max 60000)'),
    timeoutMs: timerMs(1).default(10_000).describe('HTTP request timeout in ms'),
    weightLimits: z
      .record(z.string().regex(/^\d+[smhdSMHD]$/), z.number().int().positive())
      .optional()
      .describe("the IP's request-weight limits per interval (e.g. { 1M: 6000 }; the spec does not show them): normal requests stop 10% short, the rest is kept for cancels and reconciliation"),
    referencePriceRefreshMs: timerMs(1).default(10_000).describe('how often the PRICE_RANGE reference price is polled (ms)'),
    referencePriceMaxAgeMs: z.number().int().positive().default(30_000).describe('a reference price older than this is not used: PRICE_RANGE is then left to the exchange'),
  }),
);

const wireFilter = z.looseObject({ filterType: z.string() });

/** Per-symbol settings: symbol type (host routing) and, for simulations, the filters. */
export const symbolSchema = z.strictObject({
  symbolType: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1).describe('1 MAIN, 2 NEXT, 3 NEW (routing of market data and streams)'),
  filters: z.array(wireFilter).default([]).describe('exchange filters as the symbols endpoint gives them (backtest and paper)'),
});

/**
 * Exchange-wide filters. The spec defines EXCHANGE_MAX_NUM_ORDERS and EXCHANGE_MAX_NUM_ALGO_ORDERS
 * but not where the exchange publishes them, so a run is told: the risk gate counts every open
 * order of the account this run knows against them, and simulations (paper, backtest) enforce them.
 */
export const exchangeFilterSchema = z.lazy(() =>
  z.discriminatedUnion('filterType', [
    z.strictObject({ filterType: z.literal('EXCHANGE_MAX_NUM_ORDERS'), maxNumOrders: z.number().int().positive().describe('max open orders of the account on the exchange') }),
    z.strictObject({ filterType: z.literal('EXCHANGE_MAX_NUM_ALGO_ORDERS'), maxNumAlgoOrders: z.number().int().positive().describe('max open algo (stop/take-profit) orders of the account on the exchange') }),
  ]),
);

/** User limits (run-wide under `risk`, or per strategy). */
const limitsShape = () => ({
  maxOrderNotional: decimalValue.optional().describe('largest order value in the quote asset'),
  maxOpenOrders: z.number().int().positive().optional().describe("most open orders of one strategy"),
  maxOrderRate: z.strictObject({ count: z.number().int().positive(), windowMs: z.number().int().positive().max(86_400_000) }).optional().describe('at most count placements in any windowMs (a day at most)'),
  dailyLossLimit: decimalValue.optional().describe('loss in the quote asset after which only reducing orders pass'),
  maxPosition: z.record(z.string(), decimalValue).optional().describe('largest absolute position per base asset'),
});

/** Risk mode: refuse prices/quantities off the grid, or round them toward the safe side. */
export const riskModeSchema = z.enum(['reject', 'adjust']);

/** Run-wide risk settings. */
export const riskSchema = z.lazy(() => z.strictObject({ mode: riskModeSchema.default('reject').describe('default for strategies without their own'), ...limitsShape() }));

/** One strategy of the run. */
export const strategySchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,16}$/, '1 to 16 of [A-Za-z0-9_-] (it prefixes clientIds)').describe('unique name; prefixes clientIds'),
  plugin: z.string().min(1).describe('a plugin name from strategies/ or a path to a module'),
  symbols: z.array(symbolName).min(1),
  budget: z.record(z.string(), decimalValue).default({}).describe('assets the strategy may use, e.g. { IDR: "1000000" }'),
  params: z.record(z.string(), z.unknown()).default({}).describe("the plugin's parameters (checked by its own schema)"),
  risk: z
    .lazy(() => z.strictObject({ mode: riskModeSchema.optional(), ...limitsShape() }))
    .optional()
    .describe('per-strategy risk mode and limits'),
});

/** One latency: ms, a seeded log-normal by its median and 99th percentile, or a file of recorded ms (src/venue/latency.ts). */
const latencySpec = z.union([
  z.number().min(0).max(MAX_TIMER_MS, { error: `expected 0 to ${MAX_TIMER_MS} ms` }),
  z
    .strictObject({ median: z.number().positive().describe('median ms'), p99: z.number().positive().describe('99th percentile ms') })
    .refine((v) => v.p99 >= v.median, 'p99 must not be below median'),
  z.strictObject({
    file: z.string().min(1).describe('text file of recorded ms, one a line'),
    order: z.enum(['random', 'recorded']).optional().describe("random (default): drawn from, seeded; recorded: one after another in the file's order, from the first again after the last"),
  }),
]);
/** Default of each order latency (ms): the recordings' median one-way feed latency (src/backtest/README.md, "Latency"). */
const DEFAULT_ORDER_LATENCY_MS = 4;
/**
 * Default stream hold (ms): 0, as live. kancil's live user data streams deliver an event the
 * moment it arrives in E order and hold only after a gap or reordering
 * (src/exchange/stream/user-event-order.ts), so a resting order's fill costs no more than an answer.
 */
export const DEFAULT_STREAM_HOLD_MS = 0;
/** Order latencies of the simulated venue (backtest and paper). */
export const latencySchema = z.strictObject({
  entryMs: latencySpec.default(DEFAULT_ORDER_LATENCY_MS).describe('order sent -> order reaches the engine'),
  cancelMs: latencySpec.default(DEFAULT_ORDER_LATENCY_MS).describe('cancel sent -> cancel reaches the engine'),
  ackMs: latencySpec.default(DEFAULT_ORDER_LATENCY_MS).describe('engine report -> the strategy sees it'),
  streamHoldMs: z
    .number()
    .min(0)
    .default(DEFAULT_STREAM_HOLD_MS)
    .describe('added to ackMs for the fills (and expiries) of resting orders, which a live run hears only on its user data stream (default 0: that stream holds nothing that arrives in order)'),
  seed: z.number().int().default(1).describe('seed of the drawn latencies'),
});
const latencyDefaults = { entryMs: DEFAULT_ORDER_LATENCY_MS, cancelMs: DEFAULT_ORDER_LATENCY_MS, ackMs: DEFAULT_ORDER_LATENCY_MS, streamHoldMs: DEFAULT_STREAM_HOLD_MS, seed: 1 };
/**
 * Default bound (ms) of how far before its replay time the simulated exchange applies an item
 * (src/backtest/twoClocks.ts): above the largest lag on the BTCUSDT recordings (217 ms, a trade
 * published late), small enough that the look-ahead holds about a second of data.
 */
export const DEFAULT_MAX_EXCHANGE_LAG_MS = 1000;
/** When strategies see recorded data (src/backtest/feedTime.ts). */
const feedSchema = z.lazy(() =>
  z.strictObject({
    time: z
      .enum(['receive', 'exchange'])
      .default('receive')
      .describe("receive: each item when the recorder received it, on the exchange's clock (feed latency); exchange: at its event time (none)"),
    offsetMs: z.number().optional().describe('receive clock minus exchange clock (ms); default: estimated per window from the fastest depth diff or trade'),
    windowMs: z.number().int().positive().default(30_000).describe('receive time over which one clock offset is estimated'),
    maxExchangeLagMs: z
      .number()
      .int()
      .min(0)
      .default(DEFAULT_MAX_EXCHANGE_LAG_MS)
      .describe("tick mode: how far (ms) an item's exchange time, when the simulated exchange applies it, may lie before its replay time; 0: the exchange moves with the strategy (one clock)"),
  }),
);
const feesSchema = z.strictObject({ makerBps: z.number().min(0).default(10), takerBps: z.number().min(0).default(10) });
/** A time bound: ISO 8601 text or epoch ms. */
const timeBound = z.lazy(() => z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })]));

const WARMUP_HINT = 'expected a duration such as 90m, 2h or 1d, or a whole number of bars (of the shortest kline interval read)';

/** The backtest section. */
export const backtestSchema = z.strictObject({
  recordings: z.array(z.strictObject({ symbol: symbolName, files: z.array(z.string().min(1)).min(1) })).default([]).describe('recorded streams to replay'),
  candles: z
    .lazy(() => z.array(z.strictObject({ symbol: symbolName, interval: z.enum(['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '3d', '1w', '1M']), files: z.array(z.string().min(1)).min(1) })))
    .default([])
    .describe('candle mode: kline files'),
  latency: latencySchema.default(latencyDefaults),
  feed: feedSchema.default({ time: 'receive', windowMs: 30_000, maxExchangeLagMs: DEFAULT_MAX_EXCHANGE_LAG_MS }),
  fees: feesSchema.default({ makerBps: 10, takerBps: 10 }),
  balances: z.record(z.string(), decimalValue).optional().describe("engine balances; default: the sum of the strategies' budgets"),
  start: timeBound
    .optional()
    .describe('deliver from this time (ISO 8601 or epoch ms, inclusive); earlier data only warms up books, engine and prices, unseen by strategies (but for the warmup span); books must be synchronised by then'),
  end: timeBound.optional().describe('replay until this time (inclusive; not before start)'),
  warmup: z
    .lazy(() => z.union([z.number().int(WARMUP_HINT).positive(WARMUP_HINT), z.string().regex(DURATION_PATTERN, WARMUP_HINT)], { error: WARMUP_HINT }))
    .optional()
    .describe("history before start (or the data's first item) handed to the strategies' handlers without trading: a duration (90m, 2h, 1d) or a number of bars of the shortest kline interval; orders placed in it are refused (WARM_UP)"),
  equityIntervalMs: z.number().int().positive().optional().describe("equity sampling period (ms) of metrics and charts; default: the candles' shortest interval, else 1000"),
  timerMs: z.number().int().min(0).default(1000).describe('timer event period for strategies (0: none); the same default as run.timerMs'),
  fillModel: z
    .enum(['kancil', 'hftbacktest'])
    .default('kancil')
    .describe('kancil: replayed trades use up replayed liquidity and a trade a diff reflects counts once; hftbacktest: the replayed book stays as it is after a trade (as hftbacktest and Nautilus Trader), for comparing results (src/sim/README.md)'),
  queueModel: z
    .lazy(() => z.discriminatedUnion('type', [z.strictObject({ type: z.literal('riskAverse') }), z.strictObject({ type: z.literal('powerProb'), power: z.number().int().min(1).max(10).default(2) })]))
    .default({ type: 'riskAverse' })
    .describe("an own order's queue position when its level shrinks: riskAverse (cancels come from behind it) or powerProb (hftbacktest's power-prob family, f(x) = x^power)"),
  output: z.string().optional().describe('report folder'),
});

/** The paper section. */
export const paperSchema = z.lazy(() =>
  z.strictObject({
    balances: z.record(z.string(), decimalValue).optional().describe('simulated account balances'),
    makerBps: z.number().min(0).default(10),
    takerBps: z.number().min(0).default(10),
    latency: latencySchema.default(latencyDefaults).describe('order latencies of the paper venue, as in a backtest'),
    latencyMs: z.number().min(0).max(MAX_TIMER_MS, { error: `expected 0 to ${MAX_TIMER_MS} ms` }).optional().describe('shorthand: one constant latency for entry, cancel and report (not with latency)'),
  }),
);

/** Run control. */
export const runSchema = z.lazy(() =>
  z.strictObject({
    durationSec: z.number().min(0).default(0).describe('stop after this many seconds (0: until a signal)'),
    statusIntervalSec: timerSec().default(10),
    timerMs: timerMs(0).default(1000).describe('timer event period for strategies (0: none)'),
    cancelOnShutdown: z.boolean().default(true),
    startupWaitSec: z.number().min(0).default(300).describe('live: how long start-up waits out an exchange that is unavailable (ban, maintenance, timeouts) before it exits non-zero (0: not at all)'),
    exchangeSilenceSec: z.number().min(0).default(15).describe('halt trading when no stream message arrived for this long and a REST probe sent meanwhile went unanswered (0: never)'),
  }),
);

/** Logging. */
export const loggingSchema = z.lazy(() =>
  z.strictObject({
    level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
    pretty: z.boolean().optional().describe('human-readable output (default: when the output is a terminal)'),
  }),
);

/** Notifications of a running bot (the console sends them; credentials come from the environment). */
export const notifySchema = z.lazy(() =>
  z.strictObject({
    webhook: z.boolean().default(false).describe('POST each notification as JSON to the URL in KANCIL_WEBHOOK_URL'),
    telegram: z
      .strictObject({
        chatId: z.union([z.string().min(1), z.number().int()]).transform(String).describe('chat to send to (the bot token comes from KANCIL_TELEGRAM_TOKEN)'),
        baseUrl: url.default('https://api.telegram.org').describe('Telegram Bot API address (a test points it at a local fake)'),
        commands: z.boolean().default(true).describe('answer /status, /balance, /profit, /daily, /orders and obey /halt, /reduce, /resume, /stop from the command chats (long polling)'),
        commandChatIds: z.array(z.union([z.string().min(1), z.number().int()]).transform(String)).optional().describe('chats whose commands are obeyed (default: chatId only); messages from any other chat are ignored'),
      })
      .optional(),
    events: z
      .array(z.enum(['fill', 'failure', 'state', 'reconnects', 'rejections', 'daily']))
      .default(['fill', 'failure', 'state', 'reconnects', 'rejections', 'daily'])
      .describe('info sent besides the critical alerts: fills, reconnect storms, rejection bursts, the daily summary (failure and state are critical and always sent)'),
    maxPerMinute: z.number().int().positive().default(20).describe('info messages per minute per channel; the rest are counted and summarised at most once a minute (critical alerts are never dropped)'),
    outageAfterSec: z.number().positive().max(30).default(10).describe('a stream down or resyncing this long is an "exchange unreachable" alert'),
    reconnectStorm: z.strictObject({ count: z.number().int().positive(), windowSec: z.number().positive() }).default({ count: 5, windowSec: 60 }).describe('this many stream disconnects within the window is a storm'),
    rejectionBurst: z.strictObject({ count: z.number().int().positive(), windowSec: z.number().positive() }).default({ count: 20, windowSec: 60 }).describe('this many refused intents within the window is a burst'),
  }),
);

/** The operator's console of `kancil run`: HTTP control API, dashboard, /metrics, notifications. */
export const consoleSchema = z.lazy(() =>
  z.strictObject({
    enabled: z.boolean().default(true).describe('serve the console (the --console flag also turns it on)'),
    host: z.string().min(1).default('127.0.0.1').describe('address to listen on; any other than loopback needs KANCIL_CONSOLE_TOKEN'),
    port: z.number().int().min(0).max(65_535).default(8321).describe('port (0: any free port)'),
    allowedHosts: z
      .array(z.string().regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[?[0-9A-Fa-f:.]+\]?)$/, 'expected a host name or an IP address, without scheme or port'))
      .default([])
      .describe('Host names answered besides the loopback names and console.host (the name a TLS proxy or a LAN address serves it under); any other Host is refused, against DNS rebinding'),
    publicReads: z.boolean().default(false).describe('with KANCIL_CONSOLE_TOKEN set, still answer reads (state, balances, orders, log tail, metrics) without it; loopback binds only'),
    notify: notifySchema.optional(),
  }),
);

/** The whole document. */
export const configSchema = z.strictObject({
  $schema: z.string().optional().describe('path of config/schema.json, for editors'),
  mode: z.enum(['live', 'paper', 'backtest']),
  name: z.string().min(1).default('run'),
  exchange: exchangeSchema.optional(),
  sandbox: z.strictObject({ config: z.string().min(1).describe('sandbox configuration file'), account: z.string().min(1).optional() }).optional().describe('start an in-process sandbox exchange and use it'),
  symbols: z.record(symbolName, symbolSchema).default({}),
  exchangeFilters: z.array(exchangeFilterSchema).default([]).describe('exchange-wide filters (the spec does not say where the exchange publishes them)'),
  strategies: z.array(strategySchema).min(1),
  risk: riskSchema.default({ mode: 'reject' }),
  storage: z.strictObject({ path: z.string().min(1).describe("SQLite ledger file (':memory:' for none)") }).optional(),
  logging: loggingSchema.default({ level: 'info' }),
  run: runSchema.default({ durationSec: 0, statusIntervalSec: 10, timerMs: 1000, cancelOnShutdown: true, startupWaitSec: 300, exchangeSilenceSec: 15 }),
  paper: paperSchema.default({ makerBps: 10, takerBps: 10, latency: latencyDefaults }),
  backtest: backtestSchema.optional(),
  console: consoleSchema.optional(),
});

/** A validated configuration (before paths are made absolute). */
export type ConfigDocument = z.output<typeof configSchema>;
/** One strategy entry. */
export type StrategyConfig = z.output<typeof strategySchema>;
