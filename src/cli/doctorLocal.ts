/**
 * The checks of `kancil doctor` that need no exchange: credentials present, the ledger writable,
 * the console token strong enough, notification channels reachable. Each returns lines saying OK
 * or what to do; none echoes a secret (only names and lengths).
 */
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SECRET_ENV } from '../config/secrets.js';
import { CONSOLE_TOKEN_ENV, isLoopbackHost, tokenProblem } from '../console/auth.js';
import { LedgerReader } from '../store/LedgerReader.js';
import type { RunConfig } from './runConfig.js';
import { consoleSettings, NOTIFY_ENV } from './runConsole.js';

/** How a check ended: OK, a warning (works, but look at it), a failure (fix before starting), or not applicable. */
export const CheckStatus = { OK: 'OK', WARN: 'WARN', FAIL: 'FAIL', SKIP: 'SKIP' } as const;
/** One of {@link CheckStatus}. */
export type CheckStatus = (typeof CheckStatus)[keyof typeof CheckStatus];

/** One line of the doctor's report. */
export interface CheckLine {
  readonly check: string;
  readonly status: CheckStatus;
  readonly text: string;
}

/** The environment the checks read. */
export type Env = Readonly<Record<string, string | undefined>>;

const line = (check: string, status: CheckStatus, text: string): CheckLine => ({ check, status, text });

/** Live needs the open API key pair; the legacy pair only when the legacy host is configured. */
export function checkKeys(cfg: RunConfig, env: Env): CheckLine[] {
  if (cfg.mode !== 'live') return [line('keys', CheckStatus.SKIP, `mode ${cfg.mode} trades no account: no keys needed`)];
  const missing = [SECRET_ENV.apiKey, SECRET_ENV.apiSecret].filter((k) => !env[k]);
  const out = [missing.length === 0 ? line('keys', CheckStatus.OK, `${SECRET_ENV.apiKey} and ${SECRET_ENV.apiSecret} set`) : line('keys', CheckStatus.FAIL, `${missing.join(' and ')} not set: put them in the environment (under systemd: /etc/kancil/kancil.env, mode 0600)`)];
  if (cfg.exchange?.legacy_base_url !== undefined) {
    const legacy = [SECRET_ENV.legacyKey, SECRET_ENV.legacySecret].filter((k) => !env[k]);
    out.push(legacy.length === 0 ? line('legacy keys', CheckStatus.OK, `${SECRET_ENV.legacyKey} and ${SECRET_ENV.legacySecret} set`) : line('legacy keys', CheckStatus.WARN, `${legacy.join(' and ')} not set: the legacy /v1 fallback for order entry stays off`));
  }
  return out;
}

/** The nearest folder of `p` that exists. */
function existingAncestor(p: string): string {
  let d = p;
  while (!existsSync(d)) d = path.dirname(d);
  return d;
}

/** The ledger's folder takes a file (tried for real: permission bits say nothing to root), and an existing ledger opens. */
export function checkLedger(cfg: RunConfig): CheckLine {
  const file = cfg.storage.path;
  if (file === ':memory:') return cfg.mode === 'live' ? line('ledger', CheckStatus.FAIL, "storage.path is ':memory:': a live restart would forget every open order; give a file in /var/lib/kancil") : line('ledger', CheckStatus.OK, 'in memory (paper)');
  const dir = path.dirname(file);
  const at = existingAncestor(dir);
  if (!statSync(at).isDirectory()) return line('ledger', CheckStatus.FAIL, `${file}: ${at} is not a folder; fix storage.path`);
  const probe = path.join(at, `.kancil-doctor-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (err) {
    return line('ledger', CheckStatus.FAIL, `${at} is not writable (${(err as NodeJS.ErrnoException).code ?? String(err)}): storage.path must be in a folder the bot's user can write (under systemd: /var/lib/kancil)`);
  }
  if (at !== dir) return line('ledger', CheckStatus.OK, `${file}: ${dir} will be created at the first start`);
  if (!existsSync(file)) return line('ledger', CheckStatus.OK, `${file}: writable folder; a new ledger will be created`);
  try {
    const r = LedgerReader.open(file);
    try {
      return line('ledger', CheckStatus.OK, `${file}: writable, ${r.orders({ open: true }).length} open orders journalled`);
    } finally {
      r.close();
    }
  } catch (err) {
    return line('ledger', CheckStatus.FAIL, `${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Character kinds and how many characters each has. */
const KINDS: readonly (readonly [RegExp, number])[] = [
  [/[a-z]/, 26],
  [/[A-Z]/, 26],
  [/[0-9]/, 10],
  [/[^a-zA-Z0-9]/, 32],
];

/**
 * Bits of a token if its characters were drawn at random from the kinds it uses (an upper bound:
 * a word has far fewer); a token of under 8 distinct characters (aaaa..., 1212...) counts as 0.
 * `openssl rand -hex 32` gives 165.
 */
export function tokenBits(token: string): number {
  if (new Set(token).size < 8) return 0;
  const alphabet = KINDS.filter(([r]) => r.test(token)).reduce((a, [, n]) => a + n, 0);
  return Math.floor(token.length * Math.log2(alphabet));
}

/** The console: a token strong enough for commands, and required off loopback. */
export function checkConsoleToken(cfg: RunConfig, env: Env): CheckLine {
  const settings = consoleSettings(cfg, false);
  if (settings === undefined) return line('console token', CheckStatus.SKIP, 'the console is off (console.enabled: false)');
  const token = env[CONSOLE_TOKEN_ENV];
  if (token === undefined || token === '') {
    return isLoopbackHost(settings.host)
      ? line('console token', CheckStatus.WARN, `${CONSOLE_TOKEN_ENV} not set: the console on ${settings.host} is read-only (no HALT or STOP from it); set one with openssl rand -hex 32`)
      : line('console token', CheckStatus.FAIL, `${CONSOLE_TOKEN_ENV} not set and console.host is ${settings.host}: the run refuses to start; set one with openssl rand -hex 32`);
  }
  const problem = tokenProblem(token);
  if (problem !== undefined) return line('console token', CheckStatus.FAIL, problem);
  const bits = tokenBits(token);
  if (bits < 64) return line('console token', CheckStatus.FAIL, `${CONSOLE_TOKEN_ENV} is weak (${token.length} characters, about ${bits} bits): use openssl rand -hex 32`);
  if (bits < 128) return line('console token', CheckStatus.WARN, `${CONSOLE_TOKEN_ENV} has about ${bits} bits: 128 or more is advised (openssl rand -hex 32)`);
  return line('console token', CheckStatus.OK, `${token.length} characters, about ${bits} bits`);
}

/** POSTs or GETs `url` within `timeoutMs`; the answer's status, or the error's text (never the URL: it may hold a token). */
async function reach(url: string, init: RequestInit, timeoutMs: number): Promise<{ status: number; body: unknown } | string> {
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await r.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // a plain-text answer stays text
    }
    return { status: r.status, body };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return err instanceof Error ? `${err.name}${cause ? ` ${cause}` : ''}` : 'error';
  }
}

/**
 * Each notification channel the config asks for: the webhook gets one test message; Telegram's
 * bot is asked who it is (getMe) and whether it sees the chat (getChat), sending nothing.
 */
export async function checkNotify(cfg: RunConfig, env: Env, timeoutMs = 5000): Promise<CheckLine[]> {
  const n = consoleSettings(cfg, false)?.notify;
  if (n === undefined || (!n.webhook && n.telegram === undefined)) return [line('notify', CheckStatus.WARN, 'no notification channel (console.notify): alerts reach nobody')];
  const out: CheckLine[] = [];
  if (n.webhook) {
    const url = env[NOTIFY_ENV.webhookUrl];
    if (url === undefined || !/^https?:\/\/\S+$/.test(url)) out.push(line('notify webhook', CheckStatus.FAIL, `${NOTIFY_ENV.webhookUrl} not set to an http(s) URL`));
    else {
      const r = await reach(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'doctor', run: cfg.name, text: `kancil doctor: test message from ${cfg.name}` }) }, timeoutMs);
      out.push(typeof r === 'string' ? line('notify webhook', CheckStatus.FAIL, `not reachable (${r}): check ${NOTIFY_ENV.webhookUrl}`) : r.status < 300 ? line('notify webhook', CheckStatus.OK, `test message accepted (HTTP ${r.status})`) : line('notify webhook', CheckStatus.FAIL, `answered HTTP ${r.status}: check ${NOTIFY_ENV.webhookUrl}`));
    }
  }
  if (n.telegram !== undefined) out.push(await checkTelegram(n.telegram.baseUrl, n.telegram.chatId, env[NOTIFY_ENV.telegramToken], timeoutMs));
  return out;
}

async function checkTelegram(baseUrl: string, chatId: string, token: string | undefined, timeoutMs: number): Promise<CheckLine> {
  if (token === undefined || token === '') return line('notify telegram', CheckStatus.FAIL, `${NOTIFY_ENV.telegramToken} not set`);
  const me = await reach(`${baseUrl}/bot${token}/getMe`, { method: 'GET' }, timeoutMs);
  if (typeof me === 'string') return line('notify telegram', CheckStatus.FAIL, `Bot API at ${baseUrl} not reachable (${me})`);
  const ok = (b: unknown): b is { ok: true; result: Record<string, unknown> } => typeof b === 'object' && b !== null && (b as { ok?: unknown }).ok === true;
  if (!ok(me.body)) return line('notify telegram', CheckStatus.FAIL, `the bot token was refused (HTTP ${me.status}): check ${NOTIFY_ENV.telegramToken}`);
  const chat = await reach(`${baseUrl}/bot${token}/getChat?chat_id=${encodeURIComponent(chatId)}`, { method: 'GET' }, timeoutMs);
  const name = String(me.body.result.username ?? 'bot');
  if (typeof chat === 'string' || !ok(chat.body)) return line('notify telegram', CheckStatus.FAIL, `bot @${name} cannot see chat ${chatId}: send the bot a message from that chat, or fix console.notify.telegram.chatId`);
  return line('notify telegram', CheckStatus.OK, `bot @${name} reaches chat ${chatId}`);
}
