/**
 * Which user data stream a live run opens: a listen token on the WebSocket API when its URL is
 * configured, else the type 1 listen key the spec has deprecated (decommission scheduled for
 * 2026-04-30), kept because a deployment may still serve it.
 */
import type { Logger } from 'pino';
import type { SymbolInfo } from '../core/types.js';
import type { OpenClient } from '../exchange/open/OpenClient.js';
import { ListenKeyUserStream } from '../exchange/stream/listen-key-stream.js';
import { ListenTokenUserStream } from '../exchange/stream/listen-token-stream.js';

/** Either user data stream. */
export type UserStream = ListenKeyUserStream | ListenTokenUserStream;

/** The addresses the choice depends on. */
export interface UserStreamEndpoints {
  readonly stream_url: string;
  readonly stream_url_new?: string;
  readonly ws_api_url?: string;
}

/** The warning logged once when a run falls back to the deprecated type 1 listen key stream. */
export const LISTEN_KEY_DEPRECATED =
  'no ws_api_url configured: using the type 1 listen key user stream, which the exchange deprecated (decommission scheduled for 2026-04-30) and may stop serving at any time; set exchange.ws_api_url to the WebSocket API URL (/ws-api/v3) to use a listen token instead';

/**
 * The user data stream the symbols need (listen token when the WebSocket API is known, else a
 * listen key) and the symbol type whose orders it reports.
 */
export function userStream(ep: UserStreamEndpoints, open: OpenClient, symbols: readonly SymbolInfo[], log: Logger): { stream: UserStream; covers: 1 | 3 } {
  const type3 = symbols.some((s) => s.type === 3);
  if (type3 && ep.stream_url_new) return { stream: new ListenKeyUserStream({ url: ep.stream_url_new, symbolType: 3, api: open, name: 'user:type3', logger: log.child({ part: 'user' }) }), covers: 3 };
  if (ep.ws_api_url) return { stream: new ListenTokenUserStream({ url: ep.ws_api_url, api: open, name: 'user:type1', logger: log.child({ part: 'user' }) }), covers: 1 };
  // Only the URL the run will use is logged: never a key, a secret or a listen key.
  log.warn({ stream_url: ep.stream_url }, LISTEN_KEY_DEPRECATED);
  return { stream: new ListenKeyUserStream({ url: ep.stream_url, symbolType: 1, api: open, name: 'user:type1', logger: log.child({ part: 'user' }) }), covers: 1 };
}
