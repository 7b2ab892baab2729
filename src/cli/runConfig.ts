/**
 * The YAML of `kancil run` (modes live and paper), validated with zod. Errors are ConfigErrors
 * naming the file, the path in the document and the value. Relative paths resolve against the
 * YAML file's folder. Secrets are never read from the file: a document carrying anything that
 * looks like a key or secret is refused, and credentials come from environment variables.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { riskSchema } from '../config/schema.js';

const decimalString = z.union([z.string().regex(/^\d+(\.\d+)?$/), z.number().nonnegative()]).transform((v) => String(v));
const symbolName = z.string().regex(/^[A-Z0-9]+_[A-Z0-9]+$/, 'expected BASE_QUOTE, e.g. BTC_IDR');
const url = z.string().regex(/^(https?|wss?):\/\//, 'expected an http(s):// or ws(s):// URL');

/** Environment variables holding credentials. */
export const SECRET_ENV = {
  apiKey: 'KANCIL_API_KEY',
  apiSecret: 'KANCIL_API_SECRET',
  legacyKey: 'KANCIL_LEGACY_API_KEY',
  legacySecret: 'KANCIL_LEGACY_API_SECRET',
} as const;

/** Schema of the run YAML. */
export const runConfigSchema = z.looseObject({
  mode: z.enum(['live', 'paper']),
  name: z.string().min(1).default('run'),
  /** Exchange addresses (the spec's placeholder names). Absent when `sandbox` starts one in-process. */
  exchange: z
    .object({
      base_url: url,
      market_url: url,
      depth_url: url.optional(),
      stream_url: url,
      stream_url_next: url.optional(),
      stream_url_new: url.optional(),
      ws_api_url: url.optional(),
      legacy_base_url: url.optional(),
      recvWindow: z.number().int().positive().max(60_000).default(5000),
      timeoutMs: z.number().int().positive().default(10_000),
    })
    .optional(),
  /** Starts a sandbox exchange in this process and points the run at it (demo, tests). */
  sandbox: z.object({ config: z.string().min(1), account: z.string().min(1).optional() }).optional(),
  strategies: z
    .array(
      z.object({
        name: z.string().regex(/^[A-Za-z0-9_-]{1,16}$/, '1 to 16 of [A-Za-z0-9_-] (it prefixes clientIds)'),
        plugin: z.string().min(1),
        symbols: z.array(symbolName).min(1),
        budget: z.record(z.string(), decimalString).default({}),
        params: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .min(1),
  // The run-wide risk limits: one definition (src/config) for live, paper and backtest.
  risk: riskSchema.default({ mode: 'reject' }),
  storage: z.object({ path: z.string().min(1) }),
  run: z
    .object({
      /** Stop after this many seconds (0: run until a signal, or the end of a sandbox replay). */
      durationSec: z.number().min(0).default(0),
      statusIntervalSec: z.number().positive().default(10),
      timerMs: z.number().int().min(0).default(1000),
      cancelOnShutdown: z.boolean().default(true),
    })
    .default({ durationSec: 0, statusIntervalSec: 10, timerMs: 1000, cancelOnShutdown: true }),
  /** Paper mode: simulated account. */
  paper: z
    .object({
      balances: z.record(z.string(), decimalString).optional(),
      makerBps: z.number().min(0).default(10),
      takerBps: z.number().min(0).default(10),
      latencyMs: z.number().int().min(0).default(0),
    })
    .default({ makerBps: 10, takerBps: 10, latencyMs: 0 }),
  logging: z.object({ level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info') }).default({ level: 'info' }),
});

/** A validated run config with absolute paths. */
export type RunConfig = z.infer<typeof runConfigSchema> & { readonly file: string; readonly dir: string };

/** Keys that must never appear in a YAML file (credentials belong in the environment). */
const SECRET_KEY = /(secret|api[_-]?key|apikey|password|passphrase|private[_-]?key)/i;

function findSecret(v: unknown, at: string[]): string[] | undefined {
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const r = findSecret(x, [...at, String(i)]);
      if (r) return r;
    }
  } else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (SECRET_KEY.test(k)) return [...at, k];
      const r = findSecret(x, [...at, k]);
      if (r) return r;
    }
  }
  return undefined;
}

/** Validates a parsed document; `file` names it in errors and anchors relative paths. */
export function parseRunConfig(doc: unknown, file: string): RunConfig {
  const secretAt = findSecret(doc, []);
  if (secretAt) {
    throw new ConfigError(file, secretAt.join('.'), '<redacted>', `secrets are not allowed in config files; set ${Object.values(SECRET_ENV).join(', ')} in the environment`);
  }
  const r = runConfigSchema.safeParse(doc);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.map(String) ?? [];
    let value: unknown = doc;
    for (const k of where) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[k] : undefined;
    throw new ConfigError(file, where.join('.'), value, issue?.message ?? 'invalid');
  }
  const cfg = r.data;
  if (!cfg.exchange && !cfg.sandbox) throw new ConfigError(file, 'exchange', undefined, 'give the exchange URLs, or a sandbox to start');
  const names = new Set<string>();
  for (const [i, s] of cfg.strategies.entries()) {
    if (names.has(s.name)) throw new ConfigError(file, `strategies.${i}.name`, s.name, 'strategy names must be unique');
    names.add(s.name);
  }
  const dir = path.dirname(path.resolve(file));
  const abs = (f: string): string => path.resolve(dir, f);
  return {
    ...cfg,
    storage: { path: cfg.storage.path === ':memory:' ? ':memory:' : abs(cfg.storage.path) },
    ...(cfg.sandbox ? { sandbox: { ...cfg.sandbox, config: abs(cfg.sandbox.config) } } : {}),
    file: path.resolve(file),
    dir,
  };
}

/** Reads and validates a run YAML file. */
export function loadRunConfig(file: string): RunConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, '', undefined, `cannot read: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(file, '', undefined, `invalid YAML: ${(err as Error).message}`);
  }
  return parseRunConfig(doc, file);
}
