import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { parseRunConfig } from './runConfig.js';
import { consoleSettings, consoleToken, planConsole } from './runConsole.js';

const base = { mode: 'paper', sandbox: { config: 'x.yaml' }, strategies: [{ name: 'mm', plugin: 'market-maker', symbols: ['BTC_USDT'] }], storage: { path: ':memory:' } };

describe('console settings', () => {
  it('is off unless the YAML block or --console turns it on', () => {
    expect(consoleSettings(parseRunConfig(base, 'a.yaml'), false)).toBeUndefined();
    expect(consoleSettings(parseRunConfig(base, 'a.yaml'), true)).toEqual({ enabled: true, host: '127.0.0.1', port: 8321 });
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
    expect(consoleToken(local, { enabled: true, host: '127.0.0.1', port: 0 }, {})).toBeUndefined();
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
