/**
 * The process's secret values (API keys and secrets, console and Telegram tokens, the webhook URL,
 * a Redis password) and the one function that replaces them in any text about to leave the
 * process: log lines, command output, ledger journal rows, console responses, notifications.
 * Field-name redaction cannot catch a key quoted inside a message or an error; this does. The
 * values are registered where they enter the process (the CLI reads the environment once at
 * start; a queue URL registers its password when parsed).
 */

/** What replaces a secret value. */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not scrubbed: replacing every "abc" in the output would garble it, and a
 * credential that short protects nothing anyway.
 */
export const MIN_SECRET_LENGTH = 4;

const values = new Set<string>();
let pattern: RegExp | undefined;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every spelling of `v` that can reach an output: as is, JSON-escaped and URL-encoded. */
function spellings(v: string): string[] {
  return [v, JSON.stringify(v).slice(1, -1), encodeURIComponent(v)];
}

/** A regular expression matching any spelling of any of `secrets` (longest first), or undefined for none. */
export function secretPattern(secrets: Iterable<string>): RegExp | undefined {
  const all = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap(spellings))];
  if (all.length === 0) return undefined;
  // Longest first, so a secret containing another is replaced whole.
  return new RegExp(all.sort((a, b) => b.length - a.length).map(escapeRe).join('|'), 'g');
}

/** Adds secret values to scrub from now on (empty and undefined ones are ignored). */
export function addSecretValues(list: Iterable<string | undefined>): void {
  const before = values.size;
  for (const v of list) if (v !== undefined && v.length >= MIN_SECRET_LENGTH) values.add(v);
  if (values.size !== before) pattern = secretPattern(values);
}

/** `text` with every registered secret value replaced by {@link REDACTED}. */
export function scrubSecretText(text: string): string {
  return pattern === undefined ? text : text.replace(pattern, REDACTED);
}
