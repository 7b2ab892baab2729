/**
 * Sandbox configuration: the YAML schema (zod), its loader, and the parsed form the server uses.
 * Every error names the file, the path in the document and the value (ConfigError).
 *
 * The API keys and secrets in a sandbox YAML are test credentials for the local sandbox only:
 * they open nothing but this process, so unlike the bot's run config they may live in YAML.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import {
  checkYamlText,
  ConfigError,
  MAX_TIMER_MS,
  configErrorOfIssues,
  type Decimal,
  type ExchangeFilters,
  OrderType,
  type OrderTypeName,
  parseDecimal,
  parseSymbolFilters,
  yamlValue,
  type PriceRangeRule,
  StpMode,
  type StpModeName,
  type SymbolInfo,
  type SymbolTypeCode,
  type WireFilter,
} from '../core/index.js';

const decimalString = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    return parseDecimal('value', typeof v === 'number' ? v.toString() : v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'expected a decimal number' });
    return z.NEVER;
  }
});
const port = z.number().int().min(0).max(65535);
const orderTypeName = z.enum(Object.keys(OrderType) as [OrderTypeName, ...OrderTypeName[]]);
const stpName = z.enum(Object.keys(StpMode) as [StpModeName, ...StpModeName[]]);
const securityType = z.enum(['API_KEY', 'SIGNED']);
const intervalLimit = z.object({
  intervalNum: z.number().int().positive(),
  intervalLetter: z.enum(['S', 'M', 'H', 'D']),
  limit: z.number().int().positive(),
});

const symbolSchema = z.object({
  symbol: z.string().regex(/^[A-Z0-9]+_[A-Z0-9]+$/, 'expected BASE_QUOTE in upper case'),
  type: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  basePrecision: z.number().int().min(0).max(18).default(8),
  quotePrecision: z.number().int().min(0).max(18).default(8),
  orderTypes: z.array(orderTypeName).default(['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT', 'TAKE_PROFIT_LIMIT']),
  defaultSelfTradePreventionMode: stpName.default('EXPIRE_MAKER'),
  allowedSelfTradePreventionModes: z.array(stpName).default(['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT', 'TRANSFER']),
  icebergEnable: z.boolean().default(true),
  ocoEnable: z.boolean().default(true),
  spotTradingEnable: z.boolean().default(true),
  marginTradingEnable: z.boolean().default(false),
  filters: z.array(z.looseObject({ filterType: z.string() })).default([]),
  /** PRICE_RANGE execution rule multipliers (type 1 only, as the spec says). */
  priceRange: z
    .object({ bidLimitMultUp: decimalString.optional(), bidLimitMultDown: decimalString.optional(), askLimitMultUp: decimalString.optional(), askLimitMultDown: decimalString.optional() })
    .optional(),
  referencePrice: decimalString.nullable().optional(),
  lastPrice: decimalString.optional(),
});

const accountSchema = z.object({
  id: z.string().min(1),
  apiKey: z.string().min(8),
  secret: z.string().min(8),
  /** Security types this key may use (the spec lets a key be restricted); default both. */
  permissions: z.array(securityType).default(['API_KEY', 'SIGNED']),
  /** Legacy /v1 credentials; default: the same key and secret. */
  legacy: z.object({ apiKey: z.string().min(8), secret: z.string().min(8) }).optional(),
  tradeGroupId: z.string().optional(),
  makerCommission: decimalString.default(parseDecimal('makerCommission', '0.001')),
  takerCommission: decimalString.default(parseDecimal('takerCommission', '0.001')),
  canTrade: z.boolean().default(true),
  canWithdraw: z.boolean().default(true),
  canDeposit: z.boolean().default(true),
  balances: z.record(z.string().regex(/^[A-Z0-9]+$/), decimalString).default({}),
});

const replaySchema = z.object({
  file: z.string().min(1),
  /** Symbol as spelled in the recording's payloads (e.g. BTCUSDT); default: the sandbox symbol without underscore. */
  sourceSymbol: z.string().optional(),
  loop: z.boolean().default(true),
  speed: z.number().positive().max(1000).default(1),
});

const syntheticSchema = z.object({
  seed: z.number().int().default(1),
  midPrice: decimalString,
  /** Levels kept on each side. */
  levels: z.number().int().min(1).max(200).default(20),
  /** Milliseconds between steps. */
  // It becomes a Node timer, which takes at most MAX_TIMER_MS.
  intervalMs: z.number().int().min(1).max(MAX_TIMER_MS, { error: `expected 1 to ${MAX_TIMER_MS} ms` }).default(100),
  /** Probability of a public trade per step. */
  tradeProbability: z.number().min(0).max(1).default(0.3),
  /** Largest quantity of one level, in lot steps. */
  maxLevelSteps: z.number().int().min(1).default(100),
});

const marketSchema = z
  .object({ symbol: z.string(), replay: replaySchema.optional(), synthetic: syntheticSchema.optional() })
  .refine((m) => (m.replay === undefined) !== (m.synthetic === undefined), { message: 'give exactly one of replay or synthetic' });

const portsSchema = z.object({
  base: port.default(0),
  market: port.default(0),
  depth: port.default(0),
  stream: port.default(0),
  streamNext: port.default(0),
  streamNew: port.default(0),
  wsApi: port.default(0),
  legacy: port.default(0),
  admin: port.default(0),
});

/** The whole sandbox YAML document. */
export const sandboxConfigSchema = z.object({
  server: z
    .object({
      host: z.string().default('127.0.0.1'),
      /** Must be true to bind a host other than loopback (the config holds credentials; the sandbox checks nothing else). */
      exposed: z.boolean().default(false),
      ports: portsSchema.default(portsSchema.parse({})),
    })
    .default({ host: '127.0.0.1', exposed: false, ports: portsSchema.parse({}) }),
  websocket: z
    .object({
      pingIntervalMs: z.number().int().positive().default(180_000),
      pongTimeoutMs: z.number().int().positive().default(600_000),
      connectionLifetimeMs: z.number().int().positive().default(86_400_000),
    })
    .default({ pingIntervalMs: 180_000, pongTimeoutMs: 600_000, connectionLifetimeMs: 86_400_000 }),
  limits: z
    .object({
      requestWeight: z.array(intervalLimit).default([{ intervalNum: 1, intervalLetter: 'M', limit: 6000 }]),
      orders: z.array(intervalLimit).default([
        { intervalNum: 10, intervalLetter: 'S', limit: 100 },
        { intervalNum: 1, intervalLetter: 'D', limit: 200_000 },
      ]),
      banBaseSec: z.number().int().positive().default(120),
      /** After a 429, requests arriving within this many ms still get 429 (they were in flight), later ones a 418 ban. */
      banGraceMs: z.number().int().nonnegative().default(1000),
      legacyPerEndpointPerMinute: z.number().int().positive().default(60),
      maxWsApiSubscriptions: z.number().int().positive().default(1000),
    })
    .default({
      requestWeight: [{ intervalNum: 1, intervalLetter: 'M', limit: 6000 }],
      orders: [
        { intervalNum: 10, intervalLetter: 'S', limit: 100 },
        { intervalNum: 1, intervalLetter: 'D', limit: 200_000 },
      ],
      banBaseSec: 120,
      banGraceMs: 1000,
      legacyPerEndpointPerMinute: 60,
      maxWsApiSubscriptions: 1000,
    }),
  exchangeFilters: z.object({ maxNumOrders: z.number().int().positive().optional(), maxNumAlgoOrders: z.number().int().positive().optional() }).default({}),
  symbols: z.array(symbolSchema).min(1),
  accounts: z.array(accountSchema).min(1),
  market: z.array(marketSchema).default([]),
});

/** The YAML document as zod parsed it. */
export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;
type Raw = z.output<typeof sandboxConfigSchema>;

/** One configured account, resolved. */
export interface SandboxAccount {
  readonly id: string;
  readonly apiKey: string;
  readonly secret: string;
  readonly permissions: ReadonlySet<'API_KEY' | 'SIGNED'>;
  readonly legacyApiKey: string;
  readonly legacySecret: string;
  readonly tradeGroupId?: string;
  readonly makerCommission: Decimal;
  readonly takerCommission: Decimal;
  readonly canTrade: boolean;
  readonly canWithdraw: boolean;
  readonly canDeposit: boolean;
  readonly balances: Readonly<Record<string, Decimal>>;
}

/** One configured symbol, resolved. */
export interface SandboxSymbol {
  readonly info: SymbolInfo;
  /** The wire filters exactly as configured (numeric values may be strings, as the spec allows). */
  readonly wireFilters: readonly WireFilter[];
  readonly priceRange?: PriceRangeRule;
  readonly referencePrice?: Decimal | null;
  readonly lastPrice?: Decimal;
}

/** Market activity of one symbol. */
export type MarketActivity =
  | { readonly kind: 'replay'; readonly symbol: string; readonly file: string; readonly sourceSymbol: string; readonly loop: boolean; readonly speed: number }
  | {
      readonly kind: 'synthetic';
      readonly symbol: string;
      readonly seed: number;
      readonly midPrice: Decimal;
      readonly levels: number;
      readonly intervalMs: number;
      readonly tradeProbability: number;
      readonly maxLevelSteps: number;
    };

/** The resolved sandbox configuration. */
export interface SandboxConfig {
  readonly host: string;
  /** True when the host is not a loopback address (allowed only with `server.exposed: true`). */
  readonly exposed: boolean;
  readonly ports: Raw['server']['ports'];
  readonly websocket: Raw['websocket'];
  readonly limits: Raw['limits'];
  readonly exchangeFilters: ExchangeFilters;
  readonly symbols: readonly SandboxSymbol[];
  readonly accounts: readonly SandboxAccount[];
  readonly market: readonly MarketActivity[];
  /**
   * The first order id the exchange hands out (default 1). A sandbox that a bot's ledger outlives
   * starts from `restartSafeFirstOrderId` (sim/restartIds.ts): the ledger keys fills on (orderId, tradeId), so a
   * restarted sandbox that counted from 1 again had a second run's fills dropped as repeats.
   */
  readonly firstOrderId?: number;
}

/**
 * Validates a parsed document and resolves it. `file` names the source in errors; relative
 * recording paths resolve against `baseDir` (the YAML file's folder).
 */
export function resolveSandboxConfig(doc: unknown, file: string, baseDir: string): SandboxConfig {
  const parsed = sandboxConfigSchema.safeParse(doc);
  if (!parsed.success) {
    throw configErrorOfIssues(file, doc, parsed.error.issues);
  }
  const raw = parsed.data;
  const symbols = raw.symbols.map((s, i): SandboxSymbol => {
    const where = `symbols[${i}]`;
    const [baseAsset, quoteAsset] = s.symbol.split('_') as [string, string];
    let filters;
    try {
      filters = parseSymbolFilters(s.filters as WireFilter[], `${where}.filters`);
    } catch (e) {
      throw new ConfigError(file, `${where}.filters`, s.filters, e instanceof Error ? e.message : String(e));
    }
    if (!s.allowedSelfTradePreventionModes.includes(s.defaultSelfTradePreventionMode)) {
      throw new ConfigError(file, `${where}.defaultSelfTradePreventionMode`, s.defaultSelfTradePreventionMode, 'must be one of allowedSelfTradePreventionModes');
    }
    const info: SymbolInfo = {
      type: s.type as SymbolTypeCode,
      symbol: s.symbol,
      baseAsset,
      quoteAsset,
      basePrecision: s.basePrecision,
      quotePrecision: s.quotePrecision,
      filters,
      orderTypes: s.orderTypes,
      defaultSelfTradePreventionMode: s.defaultSelfTradePreventionMode,
      allowedSelfTradePreventionModes: s.allowedSelfTradePreventionModes,
      icebergEnable: s.icebergEnable,
      ocoEnable: s.ocoEnable,
      spotTradingEnable: s.spotTradingEnable,
      marginTradingEnable: s.marginTradingEnable,
    };
    const out: { -readonly [K in keyof SandboxSymbol]: SandboxSymbol[K] } = { info, wireFilters: s.filters as WireFilter[] };
    if (s.priceRange) out.priceRange = { symbol: s.symbol, ...s.priceRange };
    if (s.referencePrice !== undefined) out.referencePrice = s.referencePrice;
    if (s.lastPrice !== undefined) out.lastPrice = s.lastPrice;
    return out;
  });
  const seen = new Map<string, string>();
  const claim = (key: string, where: string): void => {
    const prev = seen.get(key);
    if (prev) throw new ConfigError(file, where, key, `API key already used at ${prev}`);
    seen.set(key, where);
  };
  const ids = new Set<string>();
  const accounts = raw.accounts.map((a, i): SandboxAccount => {
    if (ids.has(a.id)) throw new ConfigError(file, `accounts[${i}].id`, a.id, 'duplicate account id');
    ids.add(a.id);
    claim(a.apiKey, `accounts[${i}].apiKey`);
    if (a.legacy) claim(`legacy:${a.legacy.apiKey}`, `accounts[${i}].legacy.apiKey`);
    else claim(`legacy:${a.apiKey}`, `accounts[${i}].apiKey`);
    const out: { -readonly [K in keyof SandboxAccount]: SandboxAccount[K] } = {
      id: a.id,
      apiKey: a.apiKey,
      secret: a.secret,
      permissions: new Set(a.permissions),
      legacyApiKey: a.legacy?.apiKey ?? a.apiKey,
      legacySecret: a.legacy?.secret ?? a.secret,
      makerCommission: a.makerCommission,
      takerCommission: a.takerCommission,
      canTrade: a.canTrade,
      canWithdraw: a.canWithdraw,
      canDeposit: a.canDeposit,
      balances: a.balances,
    };
    if (a.tradeGroupId !== undefined) out.tradeGroupId = a.tradeGroupId;
    return out;
  });
  const symbolNames = new Set(symbols.map((s) => s.info.symbol));
  const market = raw.market.map((m, i): MarketActivity => {
    if (!symbolNames.has(m.symbol)) throw new ConfigError(file, `market[${i}].symbol`, m.symbol, 'not a configured symbol');
    if (m.replay) {
      return {
        kind: 'replay',
        symbol: m.symbol,
        file: path.resolve(baseDir, m.replay.file),
        sourceSymbol: m.replay.sourceSymbol ?? m.symbol.replace('_', ''),
        loop: m.replay.loop,
        speed: m.replay.speed,
      };
    }
    const s = m.synthetic as NonNullable<typeof m.synthetic>;
    return { kind: 'synthetic', symbol: m.symbol, ...s };
  });
  const exchangeFilters: { maxNumOrders?: number; maxNumAlgoOrders?: number } = {};
  if (raw.exchangeFilters.maxNumOrders !== undefined) exchangeFilters.maxNumOrders = raw.exchangeFilters.maxNumOrders;
  if (raw.exchangeFilters.maxNumAlgoOrders !== undefined) exchangeFilters.maxNumAlgoOrders = raw.exchangeFilters.maxNumAlgoOrders;
  const exposed = !isLoopbackHost(raw.server.host);
  if (exposed && !raw.server.exposed) {
    throw new ConfigError(file, 'server.host', raw.server.host, 'not a loopback address: the sandbox would serve its test accounts, their keys and balances to the network; set server.exposed: true to bind it anyway');
  }
  return { host: raw.server.host, exposed, ports: raw.server.ports, websocket: raw.websocket, limits: raw.limits, exchangeFilters, symbols, accounts, market };
}

/** True for 127.0.0.0/8, ::1 and localhost: the addresses nothing outside this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Reads, parses and validates a sandbox YAML file. */
export function loadSandboxConfig(file: string): SandboxConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, '', undefined, `cannot read file: ${e instanceof Error ? e.message : String(e)}`);
  }
  checkYamlText(file, text);
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    throw new ConfigError(file, '', undefined, `YAML syntax: ${err?.message ?? 'invalid'}`);
  }
  return resolveSandboxConfig(yamlValue(doc, file), file, path.dirname(path.resolve(file)));
}
