/**
 * Hands a socket's frames to their handler in order, holding the rest of a read after a frame
 * that queued an order (or cancel) until that request is written. ws parses every frame of one
 * socket read in one synchronous loop, while an order is sent from queued callbacks (the router's
 * promise chain, then Node's http client writes the request in a process.nextTick): those run only
 * once the loop returns, so an order waited for every later frame of its read and the orders those
 * made. After a frame that queued a send (src/core/requestWrites.ts), the frames behind it wait
 * for the next request's write, which comes in the callbacks right after the read, before the loop
 * turns to other sockets, or at the latest for the loop's check phase (setImmediate), when the
 * request waits for a free connection or was never made. Other frames are handled at once.
 */
import { afterNextRequestWrite, sendsQueued } from '../../core/requestWrites.js';

/** One socket's frames, in order. */
export class FrameTurns<T> {
  readonly #queue: T[] = [];
  #next = 0;
  /** Frames wait: a request a frame queued is not written yet. */
  #hold = false;
  #awaitingWrite = false;
  #awaitingCheck = false;

  constructor(private readonly handle: (frame: T) => void) {}

  /** Takes the next frame of the socket. */
  push(frame: T): void {
    if (this.#hold || this.#next < this.#queue.length) this.#queue.push(frame);
    else this.#run(frame);
  }

  #run(frame: T): void {
    const before = sendsQueued();
    this.handle(frame);
    if (sendsQueued() !== before) {
      this.#hold = true;
      // One registration of each at a time: sends that never become requests (a circuit open, a
      // full pool) must not pile callbacks up on the transport's signal.
      if (!this.#awaitingWrite) {
        this.#awaitingWrite = true;
        afterNextRequestWrite(this.#written);
      }
      if (!this.#awaitingCheck) {
        this.#awaitingCheck = true;
        setImmediate(this.#checked);
      }
    }
  }

  readonly #written = (): void => {
    this.#awaitingWrite = false;
    this.#resume();
  };

  readonly #checked = (): void => {
    this.#awaitingCheck = false;
    this.#resume();
  };

  /** Handles the frames that waited, up to the next one that queues a send. */
  readonly #resume = (): void => {
    if (!this.#hold) return;
    this.#hold = false;
    try {
      while (this.#next < this.#queue.length && !this.#hold) {
        const frame = this.#queue[this.#next] as T;
        this.#queue[this.#next++] = undefined as T;
        this.#run(frame);
      }
    } finally {
      if (this.#next === this.#queue.length) {
        this.#queue.length = 0;
        this.#next = 0;
      } else if (!this.#hold) {
        // A handler threw: the frames left go on at the check phase rather than never.
        this.#hold = true;
        this.#awaitingCheck = true;
        setImmediate(this.#checked);
      }
    }
  };
}
