/** Client side of the wire protocols: REST clients of both interfaces, shared transport, parsers. */
export { OpenClient, MAX_LISTEN_TOKEN_VALIDITY_MS, type OpenClientOptions } from './open/OpenClient.js';
export { MAX_RECV_WINDOW, checkRecvWindow } from './open/OpenProfile.js';
export { generateClientId, CLIENT_ID_MAX } from './open/newOrderWire.js';
export { routeMarket, type OpenHosts, type MarketEndpoint, type MarketRoute } from './open/routing.js';
export type * from './open/params.js';
export { DEPTH_LIMITS } from './open/params.js';
export type { DecimalInput, IdInput } from './open/validate.js';
export { LegacyClient, defaultNoncePath, type LegacyClientOptions, type LegacyCreateOrderParams, type LegacyStpParams, type LegacySubmissionResult } from './legacy/LegacyClient.js';
export { FileNonceStore, TimeNonceStore, type NonceStore } from './legacy/NonceStore.js';
export { HttpTransport, type HttpTransportOptions } from './transport/HttpTransport.js';
export { RateLimitState, parseRetryAfterMs, type HostRateLimit } from './transport/RateLimitState.js';
export { EndpointWindowLimiter } from './transport/EndpointWindowLimiter.js';
export { DEFAULT_RETRY, type RetryPolicy, type TransportLogger } from './transport/RestAdapter.js';
export * from './parse/index.js';
