/**
 * Two-way Telegram: long polling of the Bot API's getUpdates (with the offset past the last update
 * seen), commands from the configured chats answered in the same chat. Commands that change
 * anything go through the console's one command path (commands.ts: checked, journalled with
 * source `telegram`, then acted on). A message from any other chat is ignored and logged once per
 * chat, without its text.
 *
 * Never in the way of trading: polling is one fetch at a time on its own loop; an error backs off
 * (1 s doubling to 60 s) and is logged once per streak with the status only (the token is in the
 * URL path and never logged).
 */
import { executeCommand, type OperatorCommandName } from '../commands.js';
import type { ConsoleLogger } from '../server.js';
import type { ConsoleRun } from '../source.js';
import { DeliveryError } from '../../core/errors.js';
import type { BotApiCall } from './channels.js';
import { commandReply, HELP } from './telegramReplies.js';

/** Options of the bot. */
export interface TelegramBotOptions {
  readonly api: BotApiCall;
  /** Chats whose commands are obeyed. */
  readonly chatIds: readonly string[];
  readonly run: ConsoleRun;
  readonly log: ConsoleLogger;
  /** Long-poll wait in seconds (default 25). */
  readonly pollSec?: number;
  /** First wait after a polling error (default 1000 ms). */
  readonly retryBaseMs?: number;
}

/** Commands that act through the console's command path. */
const ACTIONS: Readonly<Record<string, OperatorCommandName>> = { halt: 'halt', reduce: 'reduce', resume: 'resume', stop: 'stop' };

const MAX_BACKOFF_MS = 60_000;

interface Update {
  readonly update_id: number;
  readonly message?: { readonly text?: string; readonly chat?: { readonly id?: number | string }; readonly from?: { readonly id?: number; readonly username?: string } };
}

/** The polling loop of one bot. */
export class TelegramBot {
  readonly #o: TelegramBotOptions;
  readonly #chats: ReadonlySet<string>;
  readonly #ignored = new Set<string>();
  readonly #abort = new AbortController();
  #offset = 0;
  #loop: Promise<void> = Promise.resolve();
  #errors = 0;
  /** Commands handled (tests, status). */
  handled = 0;

  constructor(o: TelegramBotOptions) {
    this.#o = o;
    this.#chats = new Set(o.chatIds);
  }

  /** Starts polling. */
  start(): void {
    this.#loop = this.#poll();
  }

  /** Stops polling (an open long poll is aborted). */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }

  async #poll(): Promise<void> {
    const pollSec = this.#o.pollSec ?? 25;
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        const result = await this.#o.api('getUpdates', { offset: this.#offset, timeout: pollSec, allowed_updates: ['message'] }, { timeoutMs: (pollSec + 10) * 1000, signal });
        updates = Array.isArray(result) ? (result as Update[]) : [];
        if (this.#errors > 0) this.#o.log.info({ errors: this.#errors }, 'telegram polling works again');
        this.#errors = 0;
      } catch (err) {
        if (signal.aborted) return;
        await this.#backoff(err);
        continue;
      }
      for (const u of updates) {
        if (typeof u.update_id !== 'number') continue;
        // Past this update whatever happens with it: one bad message must not be fetched for ever.
        this.#offset = Math.max(this.#offset, u.update_id + 1);
        try {
          await this.#onUpdate(u);
        } catch (err) {
          this.#o.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'telegram command failed');
        }
      }
    }
  }

  async #backoff(err: unknown): Promise<void> {
    this.#errors++;
    const e = err instanceof DeliveryError ? err : undefined;
    if (this.#errors === 1) this.#o.log.warn({ err: e?.message ?? 'telegram: error' }, 'telegram polling failed; retrying with backoff');
    const wait = Math.max(e?.retryAfterMs ?? 0, Math.min(MAX_BACKOFF_MS, (this.#o.retryBaseMs ?? 1000) * 2 ** (this.#errors - 1)));
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, wait);
      this.#abort.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }

  async #onUpdate(u: Update): Promise<void> {
    const m = u.message;
    const chat = m?.chat?.id === undefined ? undefined : String(m.chat.id);
    if (m === undefined || chat === undefined) return;
    if (!this.#chats.has(chat)) {
      if (!this.#ignored.has(chat)) {
        this.#ignored.add(chat);
        // Without the text: it may be anything, from anyone.
        this.#o.log.warn({ chatId: chat }, 'telegram message from a chat that is not configured; ignored (logged once per chat)');
      }
      return;
    }
    const text = m.text?.trim() ?? '';
    const parsed = /^\/([a-z_]+)(?:@\S+)?(?:\s+([\s\S]*))?$/i.exec(text);
    if (!parsed) return;
    const name = (parsed[1] ?? '').toLowerCase();
    const args = (parsed[2] ?? '').trim();
    this.handled++;
    const reply = this.#answer(name, args, `telegram chat ${chat} user ${m.from?.username ?? m.from?.id ?? '?'}`);
    await this.#o.api('sendMessage', { chat_id: chat, text: reply.slice(0, 4000), disable_web_page_preview: true }, { signal: this.#abort.signal });
  }

  /** The reply to one command (acting first when it is an action). */
  #answer(name: string, args: string, from: string): string {
    const run = this.#o.run;
    const action = ACTIONS[name];
    if (action === undefined) return commandReply(run, name) ?? `unknown command /${name}\n${HELP}`;
    // "/halt mm too volatile": a first word naming a strategy scopes the command to it.
    const first = args.split(/\s+/)[0] ?? '';
    const strategy = action !== 'stop' && run.strategies().some((s) => s.name === first) ? first : undefined;
    const rest = strategy === undefined ? args : args.slice(first.length).trim();
    const r = executeCommand(run, this.#o.log, { name: action, strategy, reason: rest === '' ? `telegram ${name}` : rest, source: 'telegram', from });
    if (!r.ok) return r.error;
    const scope = strategy === undefined ? 'run' : `strategy ${strategy}`;
    return r.state !== undefined ? `${scope}: ${r.state}` : 'stopping: open orders are cancelled as configured, then the run ends';
  }
}
