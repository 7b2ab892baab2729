/**
 * The run's pino logger with two independent guards so credentials never reach a log line:
 * pino's key-based redaction (any field named like a credential, at any of the first levels),
 * and a final scrub of the serialised line that replaces every credential value itself,
 * wherever it appears (messages, error stacks, URLs, nested objects).
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { PinoPretty, PrettyStream } from 'pino-pretty';
import { REDACTED, scrubSecretText, secretPattern } from '../core/secretScrub.js';
import { isSecretKey } from './secrets.js';

export { REDACTED };

const SECRET_FIELDS = ['apiKey', 'apiSecret', 'api_key', 'api_secret', 'secret', 'secretKey', 'password', 'passphrase', 'token', 'listenToken', 'listenKey', 'signature', 'legacyKey', 'legacySecret', 'authorization', 'Authorization'];
const SECRET_HEADERS = ['X-MBX-APIKEY', 'x-mbx-apikey', 'X-TC-APIKEY', 'x-tc-apikey', 'X-TC-SIGNATURE', 'x-tc-signature', 'Key', 'Sign'];

/** pino `redact.paths`: credential-named fields at the top, one and two levels down, and signed-request headers. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
  ...SECRET_HEADERS.map((h) => `headers["${h}"]`),
  ...SECRET_HEADERS.map((h) => `*.headers["${h}"]`),
];

/**
 * A function that replaces every occurrence of the given secret values (and their JSON-escaped
 * and URL-encoded forms), then of the process's registered ones (core/secretScrub.ts).
 */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  const re = secretPattern(secrets);
  return re === undefined ? scrubSecretText : (text) => scrubSecretText(text.replace(re, REDACTED));
}

/**
 * A deep copy of `value` with credential-named fields and secret values replaced: for anything
 * printed outside the logger (error reports, status dumps).
 */
export function redact<T>(value: T, secrets: readonly string[] = []): T {
  const scrub = secretScrubber(secrets);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (depth > 20 || typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (v instanceof Error) return { name: v.name, message: scrub(v.message), stack: v.stack === undefined ? undefined : scrub(v.stack) };
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = isSecretKey(k) ? REDACTED : walk(x, depth + 1);
    return out;
  };
  return walk(value, 0) as T;
}

/** Logger options. */
export interface LoggerConfig {
  readonly level?: string;
  /** Human-readable lines (pino-pretty); default: when stdout is a terminal. */
  readonly pretty?: boolean;
  /** Secret values to scrub from every line (pass secretValues(loadSecrets())). */
  readonly secrets?: readonly string[];
  /** Where lines go (default stdout); tests pass a capturing stream. */
  readonly destination?: DestinationStream | NodeJS.WritableStream;
  readonly name?: string;
}

/** Builds the run logger. */
export function createLogger(cfg: LoggerConfig = {}): Logger {
  const scrub = secretScrubber(cfg.secrets ?? []);
  const opts: LoggerOptions = {
    level: cfg.level ?? 'info',
    ...(cfg.name !== undefined ? { name: cfg.name } : {}),
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    hooks: { streamWrite: scrub },
  };
  const usePretty = cfg.pretty ?? Boolean(process.stdout.isTTY);
  const dest = cfg.destination ?? process.stdout;
  if (usePretty) {
    // pino-pretty in this thread (no worker): the scrub hook has run before it formats. Loaded only
    // here: ~40 modules a run that logs JSON (every backtest with --quiet, a service) never needs.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    const out: PrettyStream = pretty({ colorize: cfg.destination === undefined && Boolean(process.stdout.isTTY), destination: dest as Writable, sync: true });
    return pino(opts, out);
  }
  return pino(opts, dest as DestinationStream);
}
