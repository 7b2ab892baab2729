/** Builds an OpenClient from command-line options and KANCIL_* environment variables. */
import { MAX_TIMER_MS, ValidationError } from '../core/index.js';
import { OpenClient } from '../exchange/index.js';
import { EXCHANGE_OPTIONS, intOption, parseCommandArgs } from './args.js';
import { ExitCode, type CliIO, type Command } from './command.js';

/** The option values an exchange command parsed. */
export interface ExchangeArgValues {
  readonly 'base-url'?: string;
  readonly 'market-url'?: string;
  readonly 'depth-url'?: string;
  readonly 'timeout-ms'?: string;
}

/**
 * Flags win over env. Market and depth hosts fall back to the base URL because the commands
 * that only need the main host (time, symbols) should work with one address. Credentials come
 * only from the environment (KANCIL_API_KEY / KANCIL_API_SECRET), never from flags, so they do
 * not land in shell history or process listings.
 */
export function openClientFromArgs(values: ExchangeArgValues, env: Readonly<Record<string, string | undefined>>): OpenClient {
  const baseUrl = values['base-url'] ?? env.KANCIL_BASE_URL;
  if (!baseUrl) throw new ValidationError('--base-url', undefined, 'is required (or set KANCIL_BASE_URL)');
  return new OpenClient({
    baseUrl,
    marketUrl: values['market-url'] ?? env.KANCIL_MARKET_URL ?? baseUrl,
    depthUrl: values['depth-url'] ?? env.KANCIL_DEPTH_URL ?? baseUrl,
    ...(env.KANCIL_API_KEY ? { apiKey: env.KANCIL_API_KEY } : {}),
    ...(env.KANCIL_API_SECRET ? { apiSecret: env.KANCIL_API_SECRET } : {}),
    timeoutMs: intOption('timeout-ms', values['timeout-ms'], 10_000, MAX_TIMER_MS),
    // One attempt: a connectivity check should report the failure, not hide it behind retries.
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
}

/** Options an exchange command receives after parsing. */
export type ExchangeCommandValues = ExchangeArgValues & { readonly json?: boolean; readonly help?: boolean };

/**
 * Builds a command that talks to the open API with the shared options: handles --help, creates
 * the client, and always closes it.
 */
export function exchangeCommand(usage: string, body: (client: OpenClient, values: ExchangeCommandValues, io: CliIO) => Promise<number>): Command {
  return {
    usage,
    async run(argv, io) {
      const { values } = parseCommandArgs(argv, EXCHANGE_OPTIONS);
      if (values.help) {
        io.stdout(`${usage}\n`);
        return ExitCode.OK;
      }
      const client = openClientFromArgs(values, io.env);
      try {
        return await body(client, values, io);
      } finally {
        await client.close();
      }
    },
  };
}
