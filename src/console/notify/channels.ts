/**
 * Where notifications go: a webhook (JSON POST) and the Telegram Bot API (sendMessage). Each send
 * has a time limit; an error names the channel and the HTTP status, never the URL (a webhook URL
 * or the Bot API path carries the credential).
 */

import { DeliveryError } from '../../core/errors.js';
import { priorityOf, type Notification } from './alerts.js';
import { scrubSecretText } from '../../core/secretScrub.js';

/** A destination. */
export interface Channel {
  readonly name: string;
  /** Resolves when delivered; rejects with a {@link DeliveryError}. */
  send(n: Notification, run: string): Promise<void>;
}

/** Longest wait for one delivery. */
const SEND_TIMEOUT_MS = 5000;

async function post(name: string, url: string, body: unknown, timeoutMs = SEND_TIMEOUT_MS, signal?: AbortSignal): Promise<Response> {
  try {
    const timeout = AbortSignal.timeout(timeoutMs);
    // Every notification leaves through here: secret values its text quotes are scrubbed.
    return await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: scrubSecretText(JSON.stringify(body)), signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
  } catch (err) {
    // The error of fetch can quote the URL: only its kind is kept.
    const why = err instanceof Error && err.name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : err instanceof Error && err.name === 'AbortError' ? 'aborted' : 'connection failed';
    throw new DeliveryError(`${name}: ${why}`);
  }
}

/** One call of the Telegram Bot API. */
export type BotApiCall = (method: string, body: Record<string, unknown>, o?: { timeoutMs?: number; signal?: AbortSignal }) => Promise<unknown>;

/**
 * Calls of the Telegram Bot API with `token` (in the path only); each resolves to the answer's
 * `result`, or rejects with a {@link DeliveryError} naming the status and Telegram's description
 * (Telegram's own text about the request, never the token), with its retry_after.
 */
export function botApi(baseUrl: string, token: string): BotApiCall {
  const base = `${baseUrl.replace(/\/+$/, '')}/bot${token}/`;
  return async (method, body, o = {}) => {
    const r = await post('telegram', base + method, body, o.timeoutMs, o.signal);
    const answer = (await r.json().catch(() => undefined)) as { ok?: boolean; result?: unknown; description?: string; parameters?: { retry_after?: number } } | undefined;
    if (r.ok && answer?.ok === true) return answer.result;
    const wait = answer?.parameters?.retry_after;
    throw new DeliveryError(`telegram: HTTP ${r.status}${answer?.description ? ` ${answer.description.slice(0, 200)}` : ''}`, typeof wait === 'number' ? wait * 1000 : undefined);
  };
}

/** POSTs `{ run, kind, priority, t, text, data }` to `url` (from the environment); a coalesced message adds `parts`, each of that shape. */
export function webhookChannel(url: string): Channel {
  return {
    name: 'webhook',
    async send(n, run) {
      const one = (x: Notification): Record<string, unknown> => ({ run, kind: x.kind, priority: priorityOf(x.kind), t: x.t, text: x.text, data: x.data });
      const r = await post('webhook', url, n.parts ? { ...one(n), parts: n.parts.map(one) } : one(n));
      await r.body?.cancel();
      if (!r.ok) throw new DeliveryError(`webhook: HTTP ${r.status}`, r.status === 429 ? retryAfter(r.headers.get('retry-after')) : undefined);
    },
  };
}

/** Telegram Bot API sendMessage to `chatId`; `baseUrl` is https://api.telegram.org unless a test points it elsewhere. */
export function telegramChannel(baseUrl: string, token: string, chatId: string): Channel {
  const call = botApi(baseUrl, token);
  return {
    name: 'telegram',
    async send(n, run) {
      await call('sendMessage', { chat_id: chatId, text: `[${run}] ${n.text}`, disable_web_page_preview: true });
    },
  };
}

function retryAfter(v: string | null): number | undefined {
  const n = v === null ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : undefined;
}
