import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redact, REDACTED } from './logger.js';
import { loadSecrets, secretValues } from './secrets.js';

const ENV = {
  KANCIL_API_KEY: 'AKxk3J9q-open-key-0001',
  KANCIL_API_SECRET: 'S3cr3t/With+Chars=&"quote',
  KANCIL_LEGACY_API_KEY: 'LEGACY-KEY-77Q9',
  KANCIL_LEGACY_API_SECRET: 'legacy_secret_value_5511',
};

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('secrets never reach a log line', () => {
  const secrets = loadSecrets(ENV);
  const values = secretValues(secrets);

  it.each([false, true])('pretty=%s: scrubs fields, messages, errors, URLs and child bindings', (pretty) => {
    const out = capture();
    const log = createLogger({ level: 'debug', pretty, secrets: values, destination: out.stream });
    log.info({ apiKey: secrets.apiKey, cfg: { exchange: { apiSecret: secrets.apiSecret } }, headers: { 'X-MBX-APIKEY': secrets.apiKey } }, 'starting');
    log.info(`signed ${secrets.legacySecret} in message`);
    log.warn({ url: `https://api.test/open/v1/orders?signature=x&key=${encodeURIComponent(secrets.apiSecret ?? '')}` }, 'request');
    log.error(new Error(`auth failed for ${secrets.legacyKey}`));
    log.child({ session: secrets.apiKey }).debug({ deep: { a: { b: { c: { d: secrets.apiSecret } } } } }, 'child');
    log.info({ secrets }, 'the secrets object itself');
    log.info({ list: [secrets.apiKey, { note: `x${secrets.legacySecret}x` }] }, 'arrays');
    const text = out.text();
    for (const v of values) {
      expect(text).not.toContain(v);
      expect(text).not.toContain(JSON.stringify(v).slice(1, -1));
    }
    expect(text).toContain(REDACTED);
    expect(text).toContain('starting');
    expect(text.split('\n').filter((l) => l.trim() !== '').length).toBeGreaterThanOrEqual(7);
  });

  it('loadSecrets reads only the environment and prints redacted', () => {
    expect(secrets.apiKey).toBe(ENV.KANCIL_API_KEY);
    expect(JSON.stringify(secrets)).not.toContain(ENV.KANCIL_API_SECRET);
    expect(loadSecrets({})).toEqual({});
  });

  it('redact() copies a value with credential keys and values replaced', () => {
    const r = redact({ apiSecret: 'x', nested: { password: 'p', text: `key=${ENV.KANCIL_API_KEY}` }, ok: 1 }, values);
    expect(r).toEqual({ apiSecret: REDACTED, nested: { password: REDACTED, text: `key=${REDACTED}` }, ok: 1 });
  });
});
