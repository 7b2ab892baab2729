/**
 * A reverse proxy on 127.0.0.1 that passes requests to one origin and, when armed, spoils the
 * body of the next responses (cut in half: a payload no JSON parser accepts, status and headers
 * kept), so a client meets corrupted answers to calls that did take effect.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface CorruptingProxy {
  readonly url: string;
  /** Spoils the next `n` response bodies. */
  corrupt(n: number): void;
  /** Bodies spoiled so far. */
  readonly corrupted: () => number;
  close(): Promise<void>;
}

/** Starts the proxy in front of `target` (an http origin). An upstream failure drops the client's connection too. */
export async function corruptingProxy(target: string): Promise<CorruptingProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let armed = 0;
  let spoiled = 0;
  const server = http.createServer((req, res) => {
    const up = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host }, agent }, (ur) => {
      const chunks: Buffer[] = [];
      ur.on('data', (c: Buffer) => chunks.push(c));
      ur.on('end', () => {
        let body = Buffer.concat(chunks);
        if (armed > 0 && body.length > 2) {
          armed--;
          spoiled++;
          body = body.subarray(0, Math.floor(body.length / 2));
        }
        const headers = { ...ur.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        res.writeHead(ur.statusCode ?? 502, headers);
        res.end(body);
      });
      ur.on('error', () => res.destroy());
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    corrupt: (n) => void (armed += n),
    corrupted: () => spoiled,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}
