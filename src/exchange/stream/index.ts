/** Market and user data streams: connection management, control messages, typed parsing. */
export * from './apis.js';
export * from './stream-client.js';
export * from './stream-names.js';
export * from './parse-market.js';
export * from './parse-user.js';
export * from './listen-key-stream.js';
export * from './listen-token-stream.js';
export * from './user-stream-base.js';
export * from './user-event-order.js';
export * from './timing.js';
