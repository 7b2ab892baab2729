/**
 * Timing probes for the reaction-time bench (bench/reaction.bench.ts): diagnostics channels the
 * live loop publishes to at the moments that bound a reaction, a stream frame arriving and an
 * order leaving for a simulated venue or a REST request's bytes written by the HTTP transport.
 * Publishing is guarded by `hasSubscribers`, one property read, so a run that does not measure
 * pays nothing: no timestamp is taken and no object is made.
 */
import diagnosticsChannel from 'node:diagnostics_channel';

/** A WebSocket frame as it arrived, before it is decoded; times are performance.now(). */
export interface FrameProbe {
  /** When the socket read that completed the frame reached the process (its 'data' chunk). */
  readonly readAt: number;
  /** When ws handed the frame to the message handlers: after the frames before it in its read. */
  readonly at: number;
  readonly data: unknown;
}

/** An order handed to a simulated venue (paper mode): `at` is performance.now(). */
export interface OrderSentProbe {
  readonly at: number;
  readonly clientId: string;
}

/** Every market and user data stream frame received. */
export const frameReceived = diagnosticsChannel.channel('kancil:stream:frame');

/** Every order that paper mode hands to its simulated venue (the moment a live run writes the request). */
export const orderSent = diagnosticsChannel.channel('kancil:order:sent');

/** A REST request as the HTTP transport makes it or writes its last byte: `at` is performance.now(). */
export interface HttpRequestProbe {
  readonly at: number;
  /** The request body as sent (an order's names its clientId). */
  readonly body: string | undefined;
}

/** A RESTART pass of the ledger's checkpoint worker, which holds the journal's commits off: performance.now() of this thread. */
export interface WalRestartProbe {
  readonly start: number;
  readonly end: number;
}

/**
 * Every RESTART checkpoint of a file ledger's WAL (src/store/checkpointer.ts), published when the
 * worker reports it, after it ended: the bench tells the fills and orders it held up.
 */
export const walRestarted = diagnosticsChannel.channel('kancil:ledger:wal-restart');

/** Every REST request the transport makes, before it looks for a connection. */
export const httpRequestMade = diagnosticsChannel.channel('kancil:http:made');

/**
 * Every REST request whose bytes (head and body) were all handed to the socket: published as the
 * request's socket write returns (its 'prefinish'), before any other callback runs.
 */
export const httpRequestWritten = diagnosticsChannel.channel('kancil:http:written');

/**
 * Every REST request whose write Node's http client reported done (its 'finish', a tick or more
 * after the write: it waits behind the callbacks queued before it).
 */
export const httpRequestFinished = diagnosticsChannel.channel('kancil:http:finished');
