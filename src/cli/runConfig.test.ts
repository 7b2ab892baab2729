import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { loadRunConfig, parseRunConfig } from './runConfig.js';

const base = {
  mode: 'paper',
  sandbox: { config: 'sb.yaml' },
  strategies: [{ name: 'mm', plugin: 'market-maker', symbols: ['BTC_IDR'] }],
  storage: { path: 'var/x.db' },
};

function error(doc: unknown): ConfigError {
  try {
    parseRunConfig(doc, '/cfg/run.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('parseRunConfig', () => {
  it('resolves paths against the config folder and fills defaults', () => {
    const c = parseRunConfig(base, '/cfg/run.yaml');
    expect(c.storage.path).toBe('/cfg/var/x.db');
    expect(c.sandbox?.config).toBe('/cfg/sb.yaml');
    expect(c.run.cancelOnShutdown).toBe(true);
    expect(c.risk.mode).toBe('reject');
  });

  it('refuses secrets anywhere in the document without echoing them', () => {
    const e = error({ ...base, exchange: { base_url: 'http://x', market_url: 'http://x', stream_url: 'ws://x', apiSecret: 'hunter2' } });
    expect(e.path).toBe('exchange.apiSecret');
    expect(e.message).not.toContain('hunter2');
    expect(e.message).toMatch(/KANCIL_API_SECRET/);
    expect(error({ ...base, strategies: [{ ...base.strategies[0], params: { api_key: 'k' } }] }).path).toBe('strategies[0].params.api_key');
  });

  it('names the file, the path and the value of a wrong field', () => {
    const e = error({ ...base, strategies: [{ ...base.strategies[0], symbols: ['btcidr'] }] });
    expect(e.file).toBe('/cfg/run.yaml');
    expect(e.path).toBe('strategies[0].symbols[0]');
    expect(e.value).toBe('btcidr');
    expect(error({ ...base, mode: 'backtest' }).path).toBe('mode');
    expect(error({ ...base, sandbox: undefined }).path).toBe('exchange');
    expect(error({ ...base, strategies: [base.strategies[0], base.strategies[0]] }).path).toBe('strategies[1].name');
  });

  it('loads config/default.yaml (what npm start runs) through the one schema, with line numbers in errors', () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
    const c = loadRunConfig(path.join(root, 'config/default.yaml'));
    expect(c.mode).toBe('paper');
    expect(c.storage.path).toBe(path.join(root, 'var/default-paper.db'));
    expect(() => loadRunConfig(path.join(root, 'config/market-maker.yaml'))).toThrow(/market-maker\.yaml: mode="backtest": expected live or paper here \(use kancil backtest\) \(line \d+, column \d+\)/);
  });

  it('needs a ledger in both modes', () => {
    expect(error({ ...base, storage: undefined }).path).toBe('storage');
  });
});
