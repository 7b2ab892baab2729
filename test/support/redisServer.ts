/**
 * A throw-away `redis-server` (Debian's package) on 127.0.0.1 and an ephemeral port, in a temp
 * folder, persisting nothing; for the queue sweep tests, which skip when it is not installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The redis-server binary, when one is on PATH. */
export const REDIS_SERVER = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0 ? 'redis-server' : undefined;

/** A running server. */
export interface RedisServer {
  readonly port: number;
  /** redis://[:password@]127.0.0.1:port */
  readonly url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts redis-server (with `password`: requiring it) and resolves once it accepts connections. */
export async function startRedis(password?: string): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-redis-'));
  const port = await freePort();
  const child = spawn(REDIS_SERVER ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...(password !== undefined ? ['--requirepass', password] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}: ${out}`)), 15_000);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
  return {
    port,
    url: `redis://${password !== undefined ? `:${encodeURIComponent(password)}@` : ''}127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
