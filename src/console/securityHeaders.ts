/**
 * Headers every console answer carries, and the dashboard page's Content-Security-Policy. The
 * page is one document with its scripts and styles inline; instead of 'unsafe-inline' the policy
 * lists the SHA-256 of each inline block, so a script injected into the page (were a value ever
 * written as markup) would not run, and no other site may frame the page (clickjacking).
 */
import { createHash } from 'node:crypto';

/** Policy of every answer that is not the page: nothing may load, run or frame it. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Headers on every answer (the page replaces the CSP with {@link pageCsp}). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': API_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Contents of every inline `<tag>` block of the page (the page is ours: its blocks are well formed). */
function blocks(html: string, tag: 'script' | 'style'): string[] {
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g');
  return [...html.matchAll(re)].map((m) => m[1] ?? '');
}

/**
 * Style sheets a script of the page adds at run time: lightweight-charts puts its attribution
 * logo's rules in a `<style>` it creates, a fixed string in its bundle.
 */
function scriptStyles(scripts: readonly string[]): string[] {
  const re = /createElement\("style"\),[^;]{0,80}?\.innerText="([^"\\]*)"/g;
  return scripts.flatMap((s) => [...s.matchAll(re)].map((m) => m[1] ?? ''));
}

let last: { html: string; csp: string } | undefined;

/** The page's policy: only its own inline scripts and styles, requests only back to this server. */
export function pageCsp(html: string): string {
  if (last?.html === html) return last.csp;
  const scripts = blocks(html, 'script');
  const styles = [...blocks(html, 'style'), ...scriptStyles(scripts)];
  const list = (texts: readonly string[]): string => (texts.length === 0 ? "'none'" : [...new Set(texts.map(sha256))].join(' '));
  const csp = `default-src 'none'; script-src ${list(scripts)}; style-src ${list(styles)}; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  last = { html, csp };
  return csp;
}
