/**
 * `kancil doctor <config>`: checks what a run of this config needs before it is started for real
 * (under systemd: before `systemctl enable --now kancil`): keys, the exchange, the clock, the
 * account, symbols, the ledger, the console token, notification channels. One line per check with
 * OK or what to do; exit 1 when any check failed, 2 for a bad config or arguments.
 */
import path from 'node:path';
import type { Clock } from '../core/clock.js';
import { ValidationError } from '../core/index.js';
import { parseCommandArgs, type OptionSpec } from './args.js';
import { ExitCode, type Command, type CliIO } from './command.js';
import { checkExchange } from './doctorExchange.js';
import { checkConsoleToken, checkKeys, checkLedger, checkNotify, CheckStatus, type CheckLine, type Env } from './doctorLocal.js';
import { loadRunConfig } from './runConfig.js';

const USAGE = `Usage: kancil doctor <config.yaml> [--json]

Checks what a run of this config needs, one line each with OK or what to do:
  keys           the API keys in the environment (live)
  exchange       the main REST host answers
  clock          the local clock's offset from the exchange's
  account        the account may trade (live; a signed request)
  symbols        every strategy symbol listed, with its filters
  ledger         storage.path writable; an existing ledger opens
  console token  strong enough for commands; required off loopback
  notify         each channel reachable (the webhook gets one test message;
                 Telegram is asked getMe and getChat, nothing is sent)
Exit 0 when nothing failed (warnings allowed), 1 when a check failed, 2 for a bad config.

  --json         one JSON object: { ok, checks: [{ check, status, text }] }
  -h, --help     this text`;

const OPTIONS = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const satisfies OptionSpec;

/** Runs every check of `file`'s config; `clock` stands in for the local clock in tests. */
export async function diagnose(file: string, env: Env, clock?: Clock): Promise<CheckLine[]> {
  const cfg = loadRunConfig(file);
  const lines: CheckLine[] = [{ check: 'config', status: CheckStatus.OK, text: `${cfg.mode} run "${cfg.name}": ${cfg.strategies.map((s) => `${s.name} on ${s.symbols.join(' ')}`).join('; ')}` }];
  lines.push(...checkKeys(cfg, env));
  lines.push(...(await checkExchange(cfg, env, clock ? { clock } : {})));
  lines.push(checkLedger(cfg));
  lines.push(checkConsoleToken(cfg, env));
  lines.push(...(await checkNotify(cfg, env)));
  return lines;
}

function print(io: CliIO, lines: readonly CheckLine[]): void {
  const width = Math.max(...lines.map((l) => l.check.length));
  for (const l of lines) io.stdout(`${l.status.padEnd(5)} ${l.check.padEnd(width)}  ${l.text}\n`);
  const failed = lines.filter((l) => l.status === CheckStatus.FAIL).length;
  const warned = lines.filter((l) => l.status === CheckStatus.WARN).length;
  io.stdout(failed > 0 ? `\n${failed} check(s) failed: fix them before starting the bot\n` : `\nready${warned > 0 ? ` (${warned} warning(s))` : ''}\n`);
}

/** The `doctor` command. */
export const command: Command = {
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS, true);
    if (positionals.length !== 1) throw new ValidationError('config', positionals.join(' ') || undefined, 'give exactly one run config (e.g. /etc/kancil/live.yaml)');
    const lines = await diagnose(path.resolve(positionals[0] ?? ''), io.env);
    const ok = !lines.some((l) => l.status === CheckStatus.FAIL);
    if (values.json === true) io.stdout(`${JSON.stringify({ ok, checks: lines })}\n`);
    else print(io, lines);
    return ok ? ExitCode.OK : ExitCode.FAILED;
  },
};
