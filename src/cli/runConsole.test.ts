import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { parseRunConfig } from './runConfig.js';
import { consoleSettings, consoleToken, planConsole } from './runConsole.js';

const base = { mode: 'paper', sandbox: { config: 'x.yaml' }, strategies: [{ name: 'mm', plugin: 'market-maker', symbols: ['BTC_USDT'] }], storage: { path: ':memory:' } };

describe('console settings', () => {
  it('is off unless the YAML block or --console turns it on', () => {
    expect(consoleSettings(parseRunConfig(base, 'a.yaml'), false)).toBeUndefined();
    expect(consoleSettings(parseRunConfig(base, 'a.yaml'), true)).toEqual({ enabled: true, host: '127.0.0.1', port: 8321, allowedHosts: [], publicReads: false });
    expect(consoleSettings(parseRunConfig({ ...base, console: { port: 0 } }, 'a.yaml'), false)).toMatchObject({ port: 0 });
    expect(consoleSettings(parseRunConfig({ ...base, console: { enabled: false } }, 'a.yaml'), false)).toBeUndefined();
    expect(consoleSettings(parseRunConfig({ ...base, console: { enabled: false } }, 'a.yaml'), true)).toMatchObject({ enabled: true });
  });

  it('refuses a bind beyond loopback without a token, and a short token, before the run starts', () => {
    const wide = parseRunConfig({ ...base, console: { host: '0.0.0.0' } }, 'a.yaml');
    const s = consoleSettings(wide, false);
    if (!s) throw new Error('no settings');
    const err = (() => {
      try {
        return consoleToken(wide, s, {});
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/console\.host=.*0\.0\.0\.0.*KANCIL_CONSOLE_TOKEN/);
    expect(consoleToken(wide, s, { KANCIL_CONSOLE_TOKEN: 'a-long-enough-token-123' })).toBe('a-long-enough-token-123');
    expect(() => consoleToken(wide, s, { KANCIL_CONSOLE_TOKEN: 'short' })).toThrow(/at least 16 characters/);
    const local = parseRunConfig({ ...base, console: {} }, 'a.yaml');
    expect(consoleToken(local, { enabled: true, host: '127.0.0.1', port: 0, allowedHosts: [], publicReads: false }, {})).toBeUndefined();
  });

  it('refuses at start a token that no bearer header could match, without echoing it', () => {
    const local = parseRunConfig({ ...base, console: {} }, 'a.yaml');
    const s = consoleSettings(local, false);
    if (!s) throw new Error('no settings');
    for (const [token, why] of [[' a-long-enough-token-123', /whitespace/], ['a-long-enough-token-123\n', /whitespace/], ['a-long-enough token-123', /a space, a control/], ['a-long-enough-tökenn-123', /non-ASCII/]] as const) {
      let err: unknown;
      try {
        consoleToken(local, s, { KANCIL_CONSOLE_TOKEN: token });
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(token)).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(why);
      expect((err as Error).message).toContain('KANCIL_CONSOLE_TOKEN');
      expect((err as Error).message).not.toContain(token.trim());
    }
  });

  it('keeps open reads and extra Host names to what is safe, naming the field', () => {
    const wide = parseRunConfig({ ...base, console: { host: '0.0.0.0', publicReads: true } }, 'a.yaml');
    const s = consoleSettings(wide, false);
    if (!s) throw new Error('no settings');
    expect(() => consoleToken(wide, s, { KANCIL_CONSOLE_TOKEN: 'a-long-enough-token-123' })).toThrow(/console\.publicReads=true: open reads are for a loopback bind only/);
    expect(parseRunConfig({ ...base, console: { allowedHosts: ['console.example.org', '192.168.1.5', '[::1]'] } }, 'a.yaml').console?.allowedHosts).toHaveLength(3);
    for (const bad of ['https://console.example.org', 'console.example.org:443', 'a b', '']) {
      expect(() => parseRunConfig({ ...base, console: { allowedHosts: [bad] } }, 'a.yaml'), bad).toThrow(/console\.allowedHosts/);
    }
  });

  it('names a bad console field', () => {
    expect(() => parseRunConfig({ ...base, console: { port: 70000 } }, 'a.yaml')).toThrow(/console\.port/);
    expect(() => parseRunConfig({ ...base, console: { prot: 1 } }, 'a.yaml')).toThrow(/console/);
  });

  it('needs the notification credentials from the environment, naming the setting and the variable', () => {
    const cfg = parseRunConfig({ ...base, console: { notify: { webhook: true, telegram: { chatId: -100200, baseUrl: 'http://127.0.0.1:9' } } } }, 'a.yaml');
    expect(() => planConsole(cfg, false, {})).toThrow(/console\.notify\.webhook.*KANCIL_WEBHOOK_URL/);
    expect(() => planConsole(cfg, false, { KANCIL_WEBHOOK_URL: 'http://127.0.0.1:9/h' })).toThrow(/console\.notify\.telegram.*KANCIL_TELEGRAM_TOKEN/);
    const plan = planConsole(cfg, false, { KANCIL_WEBHOOK_URL: 'http://127.0.0.1:9/h', KANCIL_TELEGRAM_TOKEN: '1:abc' });
    expect(plan?.channels.map((c) => c.name)).toEqual(['webhook', 'telegram']);
    expect(plan?.settings.notify?.telegram?.chatId).toBe('-100200');
  });
});
