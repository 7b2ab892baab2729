/**
 * `kancil sandbox` as its own process (so a test can freeze it with SIGSTOP, sockets open), on
 * ephemeral loopback ports with the pipeline sandbox's synthetic market, and the cleanup of such
 * children.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { stringify } from 'yaml';
import { startKancil, type BotProcess } from '../support/botProcess.js';
import { sandboxDoc, waitFor } from './pipeline-harness.js';

/** Starts the sandbox with its config in `dir`, adds it to `children`, and reads the addresses it prints. */
export async function sandboxProcess(dir: string, children: BotProcess[]): Promise<{ proc: BotProcess; urls: Record<string, string> }> {
  const file = path.join(dir, 'sandbox.yaml');
  writeFileSync(file, stringify({ server: { host: '127.0.0.1', ports: { base: 0, market: 0, depth: 0, stream: 0, streamNext: 0, streamNew: 0, wsApi: 0, legacy: 0, admin: 0 } }, ...sandboxDoc({ synthetic: true }) }));
  const proc = startKancil(['sandbox', '--config', file]);
  children.push(proc);
  expect(await waitFor(() => /"base_url"/.test(proc.output()) || !proc.alive(), 30_000), proc.output()).toBe(true);
  const line = proc.output().split('\n').find((l) => l.includes('"base_url"')) ?? '{}';
  return { proc, urls: JSON.parse(line) as Record<string, string> };
}

/** Kills the children still alive (a stopped one is continued first, so the kill lands). */
export function killChildren(children: readonly BotProcess[]): void {
  for (const c of children) {
    if (!c.alive()) continue;
    c.child.kill('SIGCONT');
    c.child.kill('SIGKILL');
  }
}
