/**
 * The operator's console of `kancil run`: builds the console's view of a session (src/console
 * declares what it reads; the session's own parts answer) and starts the server, the live feed,
 * the metrics and the notifications. The console is a bystander: if it cannot start (the port
 * is taken) the run trades on and says so; only a console that would be unsafe (listening beyond
 * loopback without a token) refuses the run, before anything connects.
 */
import type { Logger } from 'pino';
import { consoleSchema } from '../config/schema.js';
import { Decimal } from '../core/decimal.js';
import { ConfigError } from '../core/errors.js';
import { CONSOLE_TOKEN_ENV, isLoopbackHost, tokenProblem } from '../console/auth.js';
import { dashboardPage } from '../console/dashboard.js';
import { RunFeed } from '../console/feed.js';
import { RunMetrics } from '../console/metrics.js';
import type { LogTap } from '../console/logTap.js';
import { ConsoleServer } from '../console/server.js';
import { botApi, telegramChannel, webhookChannel, type BotApiCall, type Channel } from '../console/notify/channels.js';
import { Notifier } from '../console/notify/Notifier.js';
import { TelegramBot } from '../console/notify/telegramBot.js';
import type { CommandScope, ConsoleRun } from '../console/source.js';
import type { RunConfig } from './runConfig.js';
import type { RunSession } from './runSession.js';
import { version } from './version.js';

/** The console section of a run config, with the --console flag applied. */
export type ConsoleSettings = NonNullable<RunConfig['console']>;

/** The console settings of a run: its `console:` block when enabled, or the defaults when only --console asks for one. */
export function consoleSettings(cfg: RunConfig, flag: boolean): ConsoleSettings | undefined {
  const c = cfg.console ?? (flag ? consoleSchema.parse({}) : undefined);
  if (c === undefined || !(flag || c.enabled)) return undefined;
  return { ...c, enabled: true };
}

/**
 * Refuses an unsafe console before the run starts: any bind beyond loopback needs the token, and
 * a token must be long enough to be one. Returns the token (undefined: read-only on loopback).
 */
export function consoleToken(cfg: RunConfig, settings: ConsoleSettings, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const token = env[CONSOLE_TOKEN_ENV];
  // The value is never echoed: only its length, in the message.
  const problem = token === undefined || token === '' ? undefined : tokenProblem(token);
  if (token !== undefined && problem !== undefined) throw new ConfigError(cfg.file, `env ${CONSOLE_TOKEN_ENV}`, `(${token.length} characters)`, problem);
  const t = token === '' ? undefined : token;
  if (t === undefined && !isLoopbackHost(settings.host)) throw new ConfigError(cfg.file, 'console.host', settings.host, `a console listening beyond loopback needs ${CONSOLE_TOKEN_ENV} set in the environment`);
  if (settings.publicReads && !isLoopbackHost(settings.host)) throw new ConfigError(cfg.file, 'console.publicReads', true, `open reads are for a loopback bind only, and console.host is ${settings.host}`);
  return t;
}

/** Environment variables of the notification channels' credentials. */
export const NOTIFY_ENV = { webhookUrl: 'KANCIL_WEBHOOK_URL', telegramToken: 'KANCIL_TELEGRAM_TOKEN' } as const;

/** The notification channels a config asks for, with their credentials from the environment. */
export function notifyChannels(cfg: RunConfig, settings: ConsoleSettings, env: Readonly<Record<string, string | undefined>>): Channel[] {
  const n = settings.notify;
  if (n === undefined) return [];
  const out: Channel[] = [];
  if (n.webhook) {
    const url = env[NOTIFY_ENV.webhookUrl];
    if (url === undefined || !/^https?:\/\/\S+$/.test(url)) throw new ConfigError(cfg.file, 'console.notify.webhook', true, `needs ${NOTIFY_ENV.webhookUrl} set to an http(s) URL in the environment`);
    out.push(webhookChannel(url));
  }
  if (n.telegram) {
    const token = env[NOTIFY_ENV.telegramToken];
    if (token === undefined || token === '') throw new ConfigError(cfg.file, 'console.notify.telegram', n.telegram.chatId, `needs the bot token in ${NOTIFY_ENV.telegramToken} in the environment`);
    out.push(telegramChannel(n.telegram.baseUrl, token, n.telegram.chatId));
  }
  return out;
}

/** The Telegram command chats of a config, with the Bot API to poll; undefined when commands are off. */
export function telegramCommands(settings: ConsoleSettings, env: Readonly<Record<string, string | undefined>>): { readonly api: BotApiCall; readonly chatIds: readonly string[] } | undefined {
  const t = settings.notify?.telegram;
  const token = env[NOTIFY_ENV.telegramToken];
  if (t === undefined || !t.commands || token === undefined || token === '') return undefined;
  return { api: botApi(t.baseUrl, token), chatIds: t.commandChatIds ?? [t.chatId] };
}

/** Everything the console of a run needs, checked before the run starts. */
export interface ConsolePlan {
  readonly settings: ConsoleSettings;
  readonly token: string | undefined;
  readonly channels: readonly Channel[];
  readonly telegram: ReturnType<typeof telegramCommands>;
}

/** The console plan of a run, or undefined when it has no console; a ConfigError when it would be unsafe or incomplete. */
export function planConsole(cfg: RunConfig, flag: boolean, env: Readonly<Record<string, string | undefined>>): ConsolePlan | undefined {
  const settings = consoleSettings(cfg, flag);
  if (settings === undefined) return undefined;
  return { settings, token: consoleToken(cfg, settings, env), channels: notifyChannels(cfg, settings, env), telegram: telegramCommands(settings, env) };
}

/** A started console. */
export interface RunConsole {
  /** The server's base URL; undefined when it could not listen and only the notifications run. */
  readonly url: string | undefined;
  /** Stops the console; with a reason, first says the run stopped (waiting a few seconds for it to be delivered). */
  close(stopReason?: string): Promise<void>;
}

/** The console's view of a session: its own parts, read live. */
export function consoleRunOf(session: RunSession, requestStop: (reason: string) => void): ConsoleRun {
  const p = session.parts;
  const cfg = p.config;
  const symbols = [...new Set(cfg.strategies.flatMap((s) => s.symbols))];
  const now = (): number => Date.now();
  return {
    name: cfg.name,
    mode: cfg.mode,
    startedAt: session.startedAt,
    events$: session.bus.events$,
    strategies: () =>
      cfg.strategies.map((s) => {
        const floor = p.states.strategyFloor(s.name);
        const f = p.runner.failures.find((x) => x.strategy === s.name);
        return { name: s.name, symbols: s.symbols, state: floor.state, reason: floor.reason, failure: f ? { error: f.error, phase: f.phase, t: f.t } : undefined };
      }),
    tradingState: () => ({ state: p.states.state, reason: p.states.reason }),
    positions: () => [...p.books].map(([key, b]) => ({ strategy: key.slice(0, key.indexOf(' ')), symbol: b.symbol, position: b.position, cash: b.cash, basis: b.basis, fills: b.fills, volume: b.volume, mark: p.market.mark(b.symbol) })),
    balances: () => p.balances(),
    equity: () => p.equity(),
    openOrders: () => p.tracker.liveOrders(),
    recentFills: (limit) => session.runFills().slice(-limit),
    bookTops: () =>
      symbols.map((symbol) => {
        const b = p.market.book(symbol);
        return { symbol, ready: b?.ready ?? false, bid: b?.bestBid(), ask: b?.bestAsk() };
      }),
    intentStats: () => ({ ...p.pipeline.stats }),
    // The exchange limits per IP: one figure for every host of the open API.
    weights: () => {
      const r = p.rateLimits.snapshot();
      return Object.entries(r.usedWeight).map(([interval, used]) => ({ host: 'ip', interval, used, limit: r.weightLimits[interval.toUpperCase()] }));
    },
    clockOffsetMs: () => (cfg.mode === 'live' ? p.clockOffsetMs() : undefined),
    dailyLoss: () =>
      cfg.strategies.flatMap((s) => {
        const limit = s.risk?.dailyLossLimit ?? cfg.risk.dailyLossLimit;
        return limit === undefined ? [] : [{ strategy: s.name, limit: new Decimal(limit), pnl: p.dailyPnl(s.name) }];
      }),
    journal: (kind, data) => session.ledger.journal(now(), kind, data),
    setState: (scope: CommandScope, state, reason) => {
      if (scope.strategy === undefined) return session.setTradingState(state, reason);
      p.states.commandStrategy(scope.strategy, state, reason);
      session.ledger.journal(now(), 'operator', { strategy: scope.strategy, state, reason });
    },
    cancelAll: (scope: CommandScope) => {
      const live = p.tracker.liveOrders(scope.strategy === undefined ? {} : { strategy: scope.strategy });
      if (p.router) p.router.cancelAll(scope.strategy === undefined ? {} : { strategy: scope.strategy });
      else for (const o of live) p.pipeline.venue.submit({ kind: 'cancel', strategy: o.strategy, intentId: `console:${o.clientId}:${now()}`, symbol: o.symbol, clientId: o.clientId });
      return live.length;
    },
    stop: requestStop,
    stopping: () => session.stopping,
  };
}

/**
 * Starts the console of a session. When the server cannot listen (logged) the run goes on without
 * it, but its notifications and Telegram commands still run: alerts must not depend on a free port.
 * Undefined when nothing at all could start.
 */
export async function startRunConsole(session: RunSession, o: { plan: ConsolePlan; log: Logger; tap?: LogTap; requestStop: (reason: string) => void }): Promise<RunConsole | undefined> {
  const { settings, token, channels } = o.plan;
  const log = o.log.child({ part: 'console' });
  const run = consoleRunOf(session, o.requestStop);
  const feed = new RunFeed(run);
  o.tap?.attach((line) => feed.log(line));
  feed.start();
  const n = settings.notify;
  const notifier = n && channels.length > 0 ? new Notifier({ run, feed, channels, events: n.events, maxPerMinute: n.maxPerMinute, outageAfterSec: n.outageAfterSec, reconnectStorm: n.reconnectStorm, rejectionBurst: n.rejectionBurst, log }) : undefined;
  const metrics = new RunMetrics(run, { version: version(), notifications: () => notifier?.counts() ?? [] });
  metrics.start();
  let server: ConsoleServer | undefined;
  try {
    server = await ConsoleServer.start({ run, feed, host: settings.host, port: settings.port, token, log, metrics, page: dashboardPage, allowedHosts: settings.allowedHosts, publicReads: settings.publicReads });
  } catch (err) {
    metrics.stop();
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    const why = inUse ? `port ${settings.port} is in use: set console.port to a free one (0 = any)` : err instanceof Error ? err.message : String(err);
    const alerts = notifier !== undefined || o.plan.telegram !== undefined;
    log.error({ err: why, host: settings.host, port: settings.port }, `the console could not start; the run goes on without it${alerts ? ' (notifications and Telegram commands still run)' : ''}`);
    if (!alerts) {
      feed.stop();
      o.tap?.attach(undefined);
      return undefined;
    }
  }
  notifier?.start();
  const bot = o.plan.telegram ? new TelegramBot({ ...o.plan.telegram, run, log }) : undefined;
  bot?.start();
  if (server) log.info({ url: server.url, commands: token !== undefined ? 'enabled' : `disabled (set ${CONSOLE_TOKEN_ENV})`, notify: channels.map((c) => c.name), telegramCommands: bot !== undefined }, 'console listening');
  return {
    url: server?.url,
    close: async (stopReason) => {
      if (stopReason !== undefined) notifier?.stopped(stopReason);
      o.tap?.attach(undefined);
      await Promise.all([notifier?.stop(), bot?.stop()]);
      feed.stop();
      metrics.stop();
      await server?.close();
    },
  };
}
