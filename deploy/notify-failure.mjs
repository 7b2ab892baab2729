#!/usr/bin/env node
/* global process, console, fetch, AbortSignal */
// Run by kancil-failure@.service when kancil.service fails for good: sends one alert to the
// webhook and/or Telegram chat in the environment. No dependencies (global fetch, Node 20), so it
// works even when the install it reports on is broken. Secrets only from the environment; the
// message never includes them. Exit 1 when a configured channel could not be reached.
import os from 'node:os';

const unit = process.argv[2] ?? 'kancil.service';
const text = `kancil: ${unit} failed on ${os.hostname()} at ${new Date().toISOString()} and systemd stopped restarting it. See: journalctl -u ${unit} -n 100`;
const sends = [];
const env = process.env;
const timeout = () => AbortSignal.timeout(10_000);

if (env.KANCIL_WEBHOOK_URL) {
  sends.push(['webhook', fetch(env.KANCIL_WEBHOOK_URL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'serviceFailed', unit, host: os.hostname(), text }), signal: timeout() })]);
}
if (env.KANCIL_TELEGRAM_TOKEN && env.KANCIL_TELEGRAM_CHAT_ID) {
  const base = env.KANCIL_TELEGRAM_BASE_URL ?? 'https://api.telegram.org';
  sends.push(['telegram', fetch(`${base}/bot${env.KANCIL_TELEGRAM_TOKEN}/sendMessage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chat_id: env.KANCIL_TELEGRAM_CHAT_ID, text }), signal: timeout() })]);
}
console.log(text);
if (sends.length === 0) console.log('no alert channel: set KANCIL_WEBHOOK_URL or KANCIL_TELEGRAM_TOKEN and KANCIL_TELEGRAM_CHAT_ID in /etc/kancil/kancil.env');
let failed = 0;
for (const [name, p] of sends) {
  try {
    const r = await p;
    await r.arrayBuffer();
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    console.log(`${name}: sent`);
  } catch (err) {
    failed++;
    // The error text of a Telegram call can hold the URL, and the URL holds the token.
    console.error(`${name}: not sent (${name === 'telegram' ? (err instanceof Error ? err.name : 'error') : err instanceof Error ? err.message : String(err)})`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
