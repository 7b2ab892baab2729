/**
 * Signals between the live order path and the market stream: the router counts the orders and
 * cancels it queues for sending, and the HTTP transport runs the callbacks registered here (each in
 * a process.nextTick) once the next REST request made after them has its bytes handed to its
 * socket. The live market and user streams hold the rest of a socket read's frames after a frame
 * that queued a send, until that request is written (src/exchange/stream/frame-turns.ts). The transport listens
 * for the write only while something waits: one array length read per request otherwise.
 */
const waiting: (() => void)[] = [];
let queued = 0;

/** Counts one order or cancel queued for sending (the live router, as it journals it). */
export function noteSendQueued(): void {
  queued++;
}

/** Sends queued so far (compare two readings to tell whether code in between queued one). */
export function sendsQueued(): number {
  return queued;
}

/** Runs `fn` in a process.nextTick once the next request made from now on has been written. */
export function afterNextRequestWrite(fn: () => void): void {
  waiting.push(fn);
}

/** Whether a callback waits for the next request's write. */
export function requestWriteAwaited(): boolean {
  return waiting.length > 0;
}

/** Called by the transport as a request's bytes are handed to its socket. */
export function requestWritten(): void {
  for (const fn of waiting.splice(0)) process.nextTick(fn);
}
