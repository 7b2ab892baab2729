/** Graceful WebSocket close with a hard deadline, so shutdown never hangs on a silent peer. */
import WebSocket from 'ws';

/** Closes `ws` (terminating it if still connecting or if the close handshake takes over `graceMs`). */
export function closeSocket(ws: WebSocket, graceMs = 1000): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ws.terminate();
      resolve();
    }, graceMs);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else ws.close();
  });
}
