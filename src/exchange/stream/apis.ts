/**
 * The narrow REST capabilities the streaming side needs. OpenClient (src/exchange/open) has
 * these exact method names, so it satisfies them structurally; tests pass small fakes.
 */
import type { SymbolTypeCode } from '../../core/enums.js';
import type { OrderBookSnapshot } from '../../core/types.js';

/** REST depth snapshots (step 2 of the book procedure). `symbol` is in BASE_QUOTE form. */
export interface DepthSnapshotSource {
  depth(req: { symbol: string; symbolType: SymbolTypeCode; limit?: number }): Promise<OrderBookSnapshot>;
}

/** Listen-key endpoints (POST/PUT/DELETE user-data-stream; type 3 uses /open/v1/private-n/…). */
export interface ListenKeyApi {
  createListenKey(symbolType: 1 | 3): Promise<string>;
  keepAliveListenKey(symbolType: 1 | 3, listenKey: string): Promise<void>;
  closeListenKey(symbolType: 1 | 3, listenKey: string): Promise<void>;
}

/** POST /open/v1/user-listen-token. */
export interface ListenTokenApi {
  createListenToken(validityMs?: number): Promise<{ token: string; expirationTime: number }>;
}
