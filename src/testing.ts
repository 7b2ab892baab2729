/** kancil's helpers for strategy unit tests: `import { fakeContext } from 'kancil/testing'`. */
export { fakeContext, fixedBook, openOrder, type FakeContext, type RecordedIntent } from './strategy/fakeContext.js';
