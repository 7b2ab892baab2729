/**
 * The checks of `kancil doctor` against the exchange, in the order a start needs them: the main
 * host answers, the local clock agrees with it, the account may trade (live), and every symbol the
 * strategies trade is listed with its filters. One attempt per call, no retries: a doctor reports
 * a fault, it does not wait it out. A failed step names what to do; later steps that need it are
 * skipped rather than failed again.
 */
import type { Clock } from '../core/clock.js';
import { AuthenticationError, ExchangeError, NetworkError, RateLimitedError } from '../core/errors.js';
import { OpenClient } from '../exchange/open/OpenClient.js';
import { SECRET_ENV } from '../config/secrets.js';
import { CheckStatus, type CheckLine, type Env } from './doctorLocal.js';
import type { RunConfig } from './runConfig.js';

/** Largest clock offset that is OK; beyond half the recvWindow signed requests start to fail. */
const CLOCK_OK_MS = 1000;

const line = (check: string, status: CheckStatus, text: string): CheckLine => ({ check, status, text });

/** What went wrong with a call, and what to do about it. */
function failure(err: unknown, host: string): string {
  if (err instanceof RateLimitedError) return `rate limited or banned (${err.message}): wait until the ban ends; check nothing else shares this IP's limits`;
  if (err instanceof AuthenticationError) return `key refused (${err.message}): check ${SECRET_ENV.apiKey}/${SECRET_ENV.apiSecret} and the key's permissions`;
  if (err instanceof NetworkError) return `cannot reach ${host} (${err.message}): check the URL, DNS and firewall`;
  if (err instanceof ExchangeError) return `the exchange answered HTTP ${err.httpStatus}${err.exchangeCode !== undefined ? ` code ${err.exchangeCode}` : ''}: ${err.exchangeMsg}`;
  return err instanceof Error ? err.message : String(err);
}

/** Options of {@link checkExchange}. */
export interface ExchangeCheckOptions {
  /** The local clock (a test skews it). */
  readonly clock?: Clock;
}

/** Reachability, clock, account and symbols; an in-process sandbox has nothing to reach. */
export async function checkExchange(cfg: RunConfig, env: Env, o: ExchangeCheckOptions = {}): Promise<CheckLine[]> {
  const ex = cfg.exchange;
  if (ex === undefined) return [line('exchange', CheckStatus.SKIP, 'an in-process sandbox (config sandbox:): nothing to reach')];
  const live = cfg.mode === 'live';
  const keys = live && env[SECRET_ENV.apiKey] && env[SECRET_ENV.apiSecret] ? { apiKey: env[SECRET_ENV.apiKey] ?? '', apiSecret: env[SECRET_ENV.apiSecret] ?? '' } : {};
  const client = new OpenClient({
    baseUrl: ex.base_url,
    marketUrl: ex.market_url,
    depthUrl: ex.depth_url ?? ex.market_url,
    ...keys,
    timeoutMs: ex.timeoutMs,
    recvWindow: ex.recvWindow,
    ...(o.clock ? { clock: o.clock } : {}),
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  const out: CheckLine[] = [];
  try {
    const t0 = Date.now();
    let offset: number;
    try {
      offset = await client.syncTime();
    } catch (err) {
      out.push(line('exchange', CheckStatus.FAIL, failure(err, ex.base_url)));
      out.push(line('clock', CheckStatus.SKIP, 'needs the exchange'), line('account', CheckStatus.SKIP, 'needs the exchange'), line('symbols', CheckStatus.SKIP, 'needs the exchange'));
      return out;
    }
    out.push(line('exchange', CheckStatus.OK, `${ex.base_url} answered in ${Date.now() - t0} ms`));
    out.push(clockLine(offset, ex.recvWindow));
    out.push(await accountLine(client, live, 'apiKey' in keys));
    out.push(await symbolsLine(client, cfg));
    return out;
  } finally {
    await client.close();
  }
}

function clockLine(offset: number, recvWindow: number): CheckLine {
  const text = `local clock ${Math.abs(offset)} ms ${offset > 0 ? 'behind' : 'ahead of'} the exchange`;
  if (Math.abs(offset) <= CLOCK_OK_MS) return line('clock', CheckStatus.OK, text);
  const fix = 'turn on time sync (timedatectl set-ntp true, or chrony)';
  // The client corrects for the offset it measured, so a steady offset works; one past half the
  // window leaves no room for a drift before signed requests are refused.
  if (Math.abs(offset) <= recvWindow / 2) return line('clock', CheckStatus.WARN, `${text}: the bot corrects for it, but ${fix}`);
  return line('clock', CheckStatus.FAIL, `${text} (recvWindow ${recvWindow} ms): ${fix}`);
}

async function accountLine(client: OpenClient, live: boolean, haveKeys: boolean): Promise<CheckLine> {
  if (!live) return line('account', CheckStatus.SKIP, 'paper: orders are simulated, no account is used');
  if (!haveKeys) return line('account', CheckStatus.SKIP, 'needs the keys');
  try {
    const a = await client.account();
    if (!a.canTrade) return line('account', CheckStatus.FAIL, 'the exchange says this account cannot trade (canTrade 0): enable trading for the API key');
    const held = a.balances.filter((b) => !b.free.isZero() || !b.locked.isZero()).map((b) => b.asset);
    return line('account', CheckStatus.OK, `can trade; maker ${a.makerCommission.toFixed()} taker ${a.takerCommission.toFixed()}; holds ${held.join(', ') || 'nothing'}`);
  } catch (err) {
    return line('account', CheckStatus.FAIL, failure(err, 'the account endpoint'));
  }
}

async function symbolsLine(client: OpenClient, cfg: RunConfig): Promise<CheckLine> {
  const wanted = [...new Set(cfg.strategies.flatMap((s) => s.symbols))];
  try {
    const all = new Map((await client.symbols()).map((s) => [s.symbol, s]));
    const missing = wanted.filter((s) => !all.has(s));
    if (missing.length > 0) return line('symbols', CheckStatus.FAIL, `the exchange does not list ${missing.join(', ')} (it lists ${all.size}): fix strategies[].symbols`);
    // The risk gate needs the tick and step grid of every symbol it checks.
    const bare = wanted.filter((s) => all.get(s)?.filters.priceFilter === undefined || all.get(s)?.filters.lotSize === undefined);
    if (bare.length > 0) return line('symbols', CheckStatus.FAIL, `${bare.join(', ')}: no PRICE_FILTER or LOT_SIZE from the exchange; orders could not be checked`);
    return line('symbols', CheckStatus.OK, wanted.map((s) => `${s} (${Object.keys(all.get(s)?.filters ?? {}).length} filters)`).join(', '));
  } catch (err) {
    return line('symbols', CheckStatus.FAIL, failure(err, cfg.exchange?.base_url ?? ''));
  }
}
