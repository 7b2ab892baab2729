/**
 * The check of a configured host address. A prefix test alone passes `http://[::1`, which
 * `new URL` then refuses with a TypeError (and a stack) at the first request.
 */

/** Whether `v` is an http(s) URL that parses. */
export function isHttpUrl(v: unknown): v is string {
  return typeof v === 'string' && /^https?:\/\//.test(v) && URL.canParse(v);
}
