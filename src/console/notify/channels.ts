/**
 * Where notifications go: a webhook (JSON POST) and the Telegram Bot API (sendMessage). Each send
 * has a time limit; an error names the channel and the HTTP status, never the URL (a webhook URL
 * or the Bot API path carries the credential).
 */

import { priorityOf, type Notification } from './alerts.js';

/** A destination. */
export interface Channel {
  readonly name: string;
  /** Resolves when delivered; rejects with a {@link ChannelError}. */
  send(n: Notification, run: string): Promise<void>;
}

/** A failed delivery: the channel, the status and how long the channel asked us to wait (429). */
export class ChannelError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ChannelError';
  }
}

/** Longest wait for one delivery. */
const SEND_TIMEOUT_MS = 5000;

async function post(name: string, url: string, body: unknown): Promise<Response> {
  try {
    return await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
  } catch (err) {
    // The error of fetch can quote the URL: only its kind is kept.
    const why = err instanceof Error && err.name === 'TimeoutError' ? `no answer in ${SEND_TIMEOUT_MS} ms` : 'connection failed';
    throw new ChannelError(`${name}: ${why}`);
  }
}

/** POSTs `{ run, kind, priority, t, text, data }` to `url` (from the environment); a coalesced message adds `parts`, each of that shape. */
export function webhookChannel(url: string): Channel {
  return {
    name: 'webhook',
    async send(n, run) {
      const one = (x: Notification): Record<string, unknown> => ({ run, kind: x.kind, priority: priorityOf(x.kind), t: x.t, text: x.text, data: x.data });
      const r = await post('webhook', url, n.parts ? { ...one(n), parts: n.parts.map(one) } : one(n));
      await r.body?.cancel();
      if (!r.ok) throw new ChannelError(`webhook: HTTP ${r.status}`, r.status === 429 ? retryAfter(r.headers.get('retry-after')) : undefined);
    },
  };
}

/** Telegram Bot API sendMessage to `chatId`; `baseUrl` is https://api.telegram.org unless a test points it elsewhere. */
export function telegramChannel(baseUrl: string, token: string, chatId: string): Channel {
  const url = `${baseUrl.replace(/\/+$/, '')}/bot${token}/sendMessage`;
  return {
    name: 'telegram',
    async send(n, run) {
      const r = await post('telegram', url, { chat_id: chatId, text: `[${run}] ${n.text}`, disable_web_page_preview: true });
      const body = (await r.json().catch(() => undefined)) as { ok?: boolean; description?: string; parameters?: { retry_after?: number } } | undefined;
      if (r.ok && body?.ok === true) return;
      const wait = body?.parameters?.retry_after;
      // The description is Telegram's own text about the request (never the token).
      throw new ChannelError(`telegram: HTTP ${r.status}${body?.description ? ` ${body.description.slice(0, 200)}` : ''}`, typeof wait === 'number' ? wait * 1000 : undefined);
    },
  };
}

function retryAfter(v: string | null): number | undefined {
  const n = v === null ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : undefined;
}
