/**
 * The largest frame our stream clients accept. The biggest legitimate frame is an all-market
 * `!miniTicker@arr` or a busy diff-depth batch (hundreds of KB); ws would otherwise take 100 MiB
 * per frame. A larger frame fails the connection with 1009 (message too big) as soon as its header
 * announces the length, before any of it is buffered; the client reconnects as after any drop.
 */
export const MAX_STREAM_FRAME_BYTES = 16 * 1024 * 1024;
