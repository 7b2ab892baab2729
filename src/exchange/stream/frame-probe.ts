/**
 * The reaction bench's view of a stream socket (src/core/probes.ts): each frame is published with
 * the moment the socket read that completed it reached the process, and the moment ws handed it to
 * the message handlers. ws parses every frame of one read in one synchronous loop, so a frame
 * behind others of its read is handed over later than its bytes arrived; stamping the read keeps
 * that wait inside the figures that start at the frame. Attached per connection, and only while
 * someone listens to the probe then: a run that does not measure adds no listener.
 */
import type WebSocket from 'ws';
import { type FrameProbe, frameReceived } from '../../core/probes.js';

/**
 * Publishes `ws`'s frames on the frame probe when it has subscribers now. Call before adding the
 * connection's own 'message' handler, so the probe sees each frame first.
 */
export function probeFrames(ws: WebSocket): void {
  if (!frameReceived.hasSubscribers) return;
  let readAt = Number.NaN;
  // Prepended once ws has added its own 'data' listener ('open' ends its set-up, before the frames
  // left over from the handshake's read flow), so this one runs first for every read. Added
  // earlier, at 'upgrade', it would set the socket flowing and take those frames from ws.
  ws.once('upgrade', (res) => {
    ws.once('open', () => {
      res.socket.prependListener('data', () => {
        readAt = performance.now();
      });
    });
  });
  ws.on('message', (data: WebSocket.RawData) => {
    if (frameReceived.hasSubscribers) frameReceived.publish({ readAt, at: performance.now(), data } satisfies FrameProbe);
  });
}
