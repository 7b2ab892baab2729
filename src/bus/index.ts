/** Event bus: types and the RxJS bus. */
export * from './Bus.js';
export * from './events.js';
export type * from './intents.js';
export type * from './venue.js';
