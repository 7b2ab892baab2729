import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/index.js';
import { loadSandboxConfig, resolveSandboxConfig } from './config.js';
import { testSandboxDocument } from './test-config.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');

function errorOf(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('sandbox config', () => {
  it('the default config/sandbox.yaml loads and replays the bundled recording', () => {
    const c = loadSandboxConfig(path.join(repoRoot, 'config/sandbox.yaml'));
    expect(c.symbols.map((s) => s.info.symbol)).toEqual(['BTC_USDT', 'BTC_IDR', 'ALCH_IDR']);
    const replay = c.market.find((m) => m.kind === 'replay');
    expect(replay && replay.kind === 'replay' && replay.file).toBe(path.join(repoRoot, 'backtest-data/btcusdt-sample.ndjson.gz'));
    expect(c.accounts.find((a) => a.id === 'carol')?.permissions.has('SIGNED')).toBe(false);
    expect(c.websocket.connectionLifetimeMs).toBe(86_400_000);
  });

  it('refuses a non-loopback server.host unless server.exposed is true', () => {
    const doc = { ...testSandboxDocument(), server: { host: '0.0.0.0' } };
    const e = errorOf(() => resolveSandboxConfig(doc, 's.yaml', '.'));
    expect([e.path, e.value]).toEqual(['server.host', '0.0.0.0']);
    expect(e.message).toMatch(/server\.exposed: true/);
    const exposed = resolveSandboxConfig({ ...testSandboxDocument(), server: { host: '0.0.0.0', exposed: true } }, 's.yaml', '.');
    expect(exposed.exposed).toBe(true);
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(resolveSandboxConfig({ ...testSandboxDocument(), server: { host } }, 's.yaml', '.').exposed).toBe(false);
  });

  it('errors name the file, the path in the document and the value', () => {
    const doc = testSandboxDocument();
    (doc.symbols[1] as { type: number }).type = 7;
    const e = errorOf(() => resolveSandboxConfig(doc, 'my.yaml', '.'));
    expect([e.file, e.path, e.value]).toEqual(['my.yaml', 'symbols[1].type', 7]);
    expect(e.message).toContain('my.yaml: symbols[1].type=7');

    const doc2 = testSandboxDocument();
    (doc2.accounts[0] as { balances: Record<string, unknown> }).balances = { BTC: 'lots' };
    const e2 = errorOf(() => resolveSandboxConfig(doc2, 'b.yaml', '.'));
    expect([e2.path, e2.value]).toEqual(['accounts[0].balances.BTC', 'lots']);
  });

  it('refuses duplicate API keys, unknown market symbols, a market entry with both sources, a bad filter', () => {
    const dup = testSandboxDocument();
    (dup.accounts[1] as { apiKey: string }).apiKey = dup.accounts[0]?.apiKey as string;
    expect(errorOf(() => resolveSandboxConfig(dup, 'd.yaml', '.')).path).toBe('accounts[1].apiKey');
    const unknown = testSandboxDocument();
    unknown.market = [{ symbol: 'XRP_IDR', synthetic: { midPrice: '5000' } }];
    expect(errorOf(() => resolveSandboxConfig(unknown, 'u.yaml', '.')).path).toBe('market[0].symbol');
    const both = testSandboxDocument();
    both.market = [{ symbol: 'BTC_IDR', synthetic: { midPrice: '5000' }, replay: { file: 'x' } }];
    expect(errorOf(() => resolveSandboxConfig(both, 'b.yaml', '.')).path).toBe('market[0]');
    const filter = testSandboxDocument();
    (filter.symbols[0] as { filters: unknown[] }).filters = [{ filterType: 'LOT_SIZE', minQty: 'x', maxQty: '1', stepSize: '1' }];
    expect(errorOf(() => resolveSandboxConfig(filter, 'f.yaml', '.')).path).toBe('symbols[0].filters');
  });

  it('a missing file or YAML syntax error is a ConfigError naming the file', () => {
    expect(errorOf(() => loadSandboxConfig('/nonexistent/sandbox.yaml')).file).toBe('/nonexistent/sandbox.yaml');
  });
});
