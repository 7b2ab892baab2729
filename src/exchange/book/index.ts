/** Local order books: the six-step synchroniser, the scaled-integer book and the live wiring. */
export * from './order-book.js';
export * from './book-sync.js';
export * from './live-book.js';
export * from './scaled.js';
export { BookSide } from './book-side.js';
