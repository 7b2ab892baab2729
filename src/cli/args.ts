/** Argument parsing shared by the subcommands: strict (unknown options are errors), with env fallbacks. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ValidationError } from '../core/index.js';

/** Options of a command, in node:util parseArgs form. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Parses `argv` strictly; a bad argument becomes a ValidationError naming it. */
export function parseCommandArgs<O extends OptionSpec>(argv: readonly string[], options: O, allowPositionals = false): ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: boolean; args: string[] }>> {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new ValidationError('arguments', argv.join(' '), msg);
  }
}

/** Options every exchange command accepts. */
export const EXCHANGE_OPTIONS = {
  'base-url': { type: 'string' },
  'market-url': { type: 'string' },
  'depth-url': { type: 'string' },
  'timeout-ms': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpec;

/** Usage lines of {@link EXCHANGE_OPTIONS}. */
export const EXCHANGE_OPTIONS_USAGE = `Options:
  --base-url URL     main REST host (env KANCIL_BASE_URL)
  --market-url URL   market-data host of type 1 symbols (env KANCIL_MARKET_URL; default: base URL)
  --depth-url URL    market-data host of type 3 symbols (env KANCIL_DEPTH_URL; default: base URL)
  --timeout-ms N     request timeout (default 10000)
  --json             machine-readable output
  -h, --help         this text`;

/** Reads an integer option, at most `max` (default: the largest safe integer). */
export function intOption(name: string, value: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0 || Number(value) > max) throw new ValidationError(`--${name}`, value, `must be a positive integer${max < Number.MAX_SAFE_INTEGER ? `, at most ${max}` : ''}`);
  return Number(value);
}
