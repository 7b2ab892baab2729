/**
 * Which user data streams a live run opens: a listen token on the WebSocket API for type 1 (its
 * URL configured or published by the exchange), else the type 1 listen key the spec has deprecated
 * (decommission scheduled for 2026-04-30), kept because a deployment may still serve it; and the
 * type 3 listen key beside it when type 3 symbols trade.
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
  'no ws_api_url configured and none in /v1/common/system-config: using the type 1 listen key user stream, which the exchange deprecated (decommission scheduled for 2026-04-30) and may stop serving at any time; set exchange.ws_api_url to the WebSocket API URL (/ws-api/v3) to use a listen token instead';

/**
 * The WebSocket API address the exchange publishes in /v1/common/system-config (its field ending
 * with WssApiBaseUrl, else the first of the list), or undefined when it has none or cannot be read:
 * a run then falls back to the listen key rather than not starting.
 */
export async function discoverWsApiUrl(open: Pick<OpenClient, 'systemConfig'>, log: Logger): Promise<string | undefined> {
  try {
    const cfg = await open.systemConfig();
    const url = cfg.wsApiUrl ?? cfg.wsApiUrlList[0];
    if (url !== undefined) log.info({ ws_api_url: url }, 'WebSocket API address from /v1/common/system-config');
    return url;
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not read /v1/common/system-config for the WebSocket API address');
    return undefined;
  }
}

/** The user data streams of a run and the symbol types whose orders they report. */
export interface ChosenStreams {
  readonly streams: readonly UserStream[];
  readonly covers: ReadonlySet<1 | 3>;
}

/**
 * Every user data stream the symbols need, as the spec allows both at once: a type 3 listen key
 * (private-n) for type 3 symbols, and for type 1 symbols a listen token on the WebSocket API when
 * its URL is known, else the deprecated type 1 listen key. Orders of a type no stream covers
 * (type 2 has none) are polled by the router.
 */
export function userStreams(ep: UserStreamEndpoints, open: OpenClient, symbols: readonly SymbolInfo[], log: Logger): ChosenStreams {
  const streams: UserStream[] = [];
  const covers = new Set<1 | 3>();
  const logger = log.child({ part: 'user' });
  if (symbols.some((s) => s.type === 3) && ep.stream_url_new) {
    streams.push(new ListenKeyUserStream({ url: ep.stream_url_new, symbolType: 3, api: open, name: 'user:type3', logger, holdFramesForOrders: true }));
    covers.add(3);
  }
  // Type 1 also when no symbol needs another stream: account updates come on every user stream.
  if (symbols.some((s) => s.type === 1) || streams.length === 0) {
    if (ep.ws_api_url) streams.push(new ListenTokenUserStream({ url: ep.ws_api_url, api: open, name: 'user:type1', logger, holdFramesForOrders: true }));
    else {
      // Only the URL the run will use is logged: never a key, a secret or a listen key.
      log.warn({ stream_url: ep.stream_url }, LISTEN_KEY_DEPRECATED);
      streams.push(new ListenKeyUserStream({ url: ep.stream_url, symbolType: 1, api: open, name: 'user:type1', logger, holdFramesForOrders: true }));
    }
    covers.add(1);
  }
  return { streams, covers };
}
