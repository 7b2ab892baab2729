/**
 * Checks that nothing a client hands back or logs carries a credential: a transport logger that
 * keeps every line, and the text of thrown errors (message, own fields, cause) to search.
 */
import { expect } from 'vitest';

/** A transport logger that keeps every line as text. */
export function capturingLogger(): { lines: string[]; debug(o: object, m?: string): void; warn(o: object, m?: string): void } {
  const lines: string[] = [];
  const keep = (o: object, m?: string): void => void lines.push(JSON.stringify(o) + (m ?? ''));
  return { lines, debug: keep, warn: keep };
}

/** Fails when any log line or error (message, JSON fields, cause) contains one of `secrets`. */
export function expectNoSecrets(lines: readonly string[], errors: readonly unknown[], secrets: readonly string[]): void {
  const text = [...lines, ...errors.map((e) => `${String(e)} ${JSON.stringify(e)} ${String((e as Error).cause)}`)].join('\n');
  for (const secret of secrets) expect(text).not.toContain(secret);
}
