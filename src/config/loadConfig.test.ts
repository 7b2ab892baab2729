import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { DEFAULT_STREAM_HOLD_MS } from './schema.js';
import { jsonSchemaText, SCHEMA_FILE } from './jsonSchema.js';
import { loadConfig, parseConfig } from './loadConfig.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const LIVE = `mode: live
exchange:
  base_url: https://api.example.test
  market_url: https://market.example.test
  stream_url: wss://stream.example.test
storage: { path: var/ledger.sqlite }
symbols:
  BTC_IDR: { symbolType: 1 }
strategies:
  - name: mm
    plugin: market-maker
    symbols: [BTC_IDR]
    budget: { IDR: "1000000", BTC: 0.01 }
    params: { spreadBps: 5 }
    risk: { mode: adjust, maxOpenOrders: 4 }
  - name: mine
    plugin: ./plugins/mine.ts
    symbols: [BTC_IDR]
risk:
  maxOrderNotional: "5000000"
  maxOrderRate: { count: 10, windowMs: 1000 }
logging: { level: debug, pretty: false }
`;

function fails(text: string): ConfigError {
  try {
    parseConfig(text, '/cfg/run.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('accepts a live config, fills defaults and makes paths absolute', () => {
    const { config } = parseConfig(LIVE, '/cfg/run.yaml');
    expect(config.mode).toBe('live');
    expect(config.storage?.path).toBe(path.resolve('/cfg/var/ledger.sqlite'));
    expect(config.strategies[0]?.budget).toEqual({ IDR: '1000000', BTC: '0.01' });
    expect(config.strategies[0]?.plugin).toBe('market-maker');
    expect(config.strategies[1]?.plugin).toBe(path.resolve('/cfg/plugins/mine.ts'));
    expect(config.risk.mode).toBe('reject');
    expect(config.exchange?.recvWindow).toBe(5000);
    expect(config.exchange?.referencePriceMaxAgeMs).toBe(30_000);
    expect(config.run.cancelOnShutdown).toBe(true);
    expect(config.logging).toEqual({ level: 'debug', pretty: false });
  });

  it('names file, path, value and line of a bad value', () => {
    const e = fails(LIVE.replace('IDR: "1000000"', 'IDR: "1,000,000"'));
    expect(e.file).toBe('/cfg/run.yaml');
    expect(e.path).toBe('strategies[0].budget.IDR');
    expect(e.value).toBe('1,000,000');
    expect(e.message).toMatch(/^\/cfg\/run\.yaml: strategies\[0\]\.budget\.IDR="1,000,000": .*\(line 13, column 20\)$/);
  });

  it('names a host address that does not parse as a URL (it would throw at the first request)', () => {
    const e = fails(LIVE.replace('base_url: https://api.example.test', 'base_url: "http://[::1"'));
    expect(e.message).toMatch(/^\/cfg\/run\.yaml: exchange\.base_url="http:\/\/\[::1": expected a URL that parses/);
  });

  it('takes exchange-wide filters and names a bad one', () => {
    const ok = parseConfig(`${LIVE}exchangeFilters:\n  - { filterType: EXCHANGE_MAX_NUM_ORDERS, maxNumOrders: 200 }\n`, '/cfg/run.yaml');
    expect(ok.config.exchangeFilters).toEqual([{ filterType: 'EXCHANGE_MAX_NUM_ORDERS', maxNumOrders: 200 }]);
    expect(parseConfig(LIVE, '/cfg/run.yaml').config.exchangeFilters).toEqual([]);
    const e = fails(`${LIVE}exchangeFilters:\n  - { filterType: EXCHANGE_MAX_NUM_ALGO_ORDERS, maxNumAlgoOrders: -1 }\n`);
    expect(e.path).toBe('exchangeFilters[0].maxNumAlgoOrders');
    expect(e.value).toBe(-1);
  });

  it('names an unknown (misspelt) key with its line', () => {
    const e = fails(LIVE.replace('  maxOrderNotional:', '  maxOrderNotionl:'));
    expect(e.path).toBe('risk.maxOrderNotionl');
    expect(e.message).toMatch(/unknown key "maxOrderNotionl" \(line 20, column 3\)/);
  });

  it('refuses credentials in the file without echoing them', () => {
    const e = fails(LIVE.replace('  stream_url: wss://stream.example.test', '  stream_url: wss://stream.example.test\n  api_secret: "s3cr3t-value"'));
    expect(e.path).toBe('exchange.api_secret');
    expect(e.message).not.toContain('s3cr3t-value');
    expect(e.message).toMatch(/KANCIL_API_SECRET/);
    expect(e.message).toMatch(/line 6/);
    expect(fails(LIVE.replace('params: { spreadBps: 5 }', 'params: { spreadBps: 5, token: abc }')).path).toBe('strategies[0].params.token');
  });

  it('names a sandbox config given where a run config belongs, and the command that starts it', () => {
    // config/paper-sandbox.yaml is a sandbox exchange's config: its test keys are not the user's credentials.
    const e = fails(readFileSync(path.join(root, 'config/paper-sandbox.yaml'), 'utf8'));
    expect(e.path).toBe('accounts');
    expect(e.message).toMatch(/a sandbox exchange's config, not a run config: start it with kancil sandbox --config .*sandbox\.config/);
    expect(e.message).not.toMatch(/credentials|demo-sandbox-secret/);
  });

  it('reports YAML syntax errors with their line', () => {
    const e = fails('mode: live\nstrategies: [\n');
    expect(e.message).toMatch(/invalid YAML: .*line \d+/);
  });

  it('refuses a timer period past what one Node timer holds, giving the allowed range', () => {
    const e = fails(`${LIVE}run: { timerMs: 3000000000 }\n`);
    expect(e.path).toBe('run.timerMs');
    expect(e.message).toMatch(/run\.timerMs=3000000000: expected 0 to 2147483647 ms/);
    expect(fails(`${LIVE}run: { statusIntervalSec: 2592000 }\n`).message).toMatch(/run\.statusIntervalSec=2592000: .*at most 2147483 s/);
    expect(fails(`${LIVE}paper: { latencyMs: 2147483648 }\n`).message).toMatch(/paper\.latencyMs=2147483648: expected 0 to 2147483647 ms/);
    // A 30-day run is fine: the duration is a chain of timers.
    expect(parseConfig(`${LIVE}run: { durationSec: 2592000, timerMs: 2147483647 }\n`, '/cfg/run.yaml').config.run.durationSec).toBe(2592000);
  });

  it('checks rules across sections', () => {
    expect(fails(LIVE.replace('  - name: mine', '  - name: mm')).path).toBe('strategies[1].name');
    expect(fails(LIVE.replace(/exchange:\n( {2}.*\n){3}/, '')).message).toMatch(/mode live needs exchange URLs or a sandbox/);
    expect(fails(LIVE.replace('storage: { path: var/ledger.sqlite }\n', '')).path).toBe('storage');
    expect(fails(LIVE.replace('mode: live', 'mode: backtest')).message).toMatch(/mode backtest needs a backtest section/);
    expect(fails(LIVE.replace('symbols: [BTC_IDR]\n    budget', 'symbols: [btc-idr]\n    budget')).path).toBe('strategies[0].symbols[0]');
  });

  it('loads a backtest config with the data paths resolved', () => {
    const { config } = parseConfig(
      `mode: backtest
symbols: { BTC_USDT: { filters: [{ filterType: PRICE_FILTER, minPrice: "0.01", maxPrice: "1000000", tickSize: "0.01" }] } }
strategies: [{ name: s, plugin: grid-trader, symbols: [BTC_USDT] }]
backtest:
  recordings: [{ symbol: BTC_USDT, files: [data/a.gz] }]
  latency: { entryMs: 20 }
  start: "2024-08-08T23:55:00Z"
  end: 1723161905000
`,
      '/bt/x.yaml',
    );
    expect(config.backtest?.recordings[0]?.files).toEqual([path.resolve('/bt/data/a.gz')]);
    expect(config.backtest?.latency).toEqual({ entryMs: 20, cancelMs: 4, ackMs: 4, streamHoldMs: 0, seed: 1 });
  });

  it('the default stream hold of backtest and paper is 0: live user streams hold nothing that arrives in order', () => {
    expect(DEFAULT_STREAM_HOLD_MS).toBe(0);
  });

  it('order latencies: drawn ones checked, latency files resolved, the paper shorthand, not both', () => {
    const paper = (section: string) => `mode: paper
sandbox: { config: sb.yaml }
strategies: [{ name: s, plugin: grid-trader, symbols: [BTC_USDT] }]
${section}`;
    const cfg = (text: string) => parseConfig(text, '/p/x.yaml').config;
    expect(cfg(paper('')).paper.latency).toEqual({ entryMs: 4, cancelMs: 4, ackMs: 4, streamHoldMs: 0, seed: 1 });
    expect(cfg(paper('paper: { latencyMs: 15 }')).paper.latency).toEqual({ entryMs: 15, cancelMs: 15, ackMs: 15, streamHoldMs: 0, seed: 1 });
    expect(cfg(paper('paper: { latency: { entryMs: { median: 3, p99: 30 }, ackMs: { file: lat/ack.txt }, seed: 9 } }')).paper.latency).toEqual({
      entryMs: { median: 3, p99: 30 },
      cancelMs: 4,
      ackMs: { file: path.resolve('/p/lat/ack.txt') },
      streamHoldMs: 0,
      seed: 9,
    });
    const fails = (text: string) => {
      try {
        parseConfig(text, '/p/x.yaml');
      } catch (e) {
        return (e as ConfigError).message;
      }
      throw new Error('accepted');
    };
    expect(fails(paper('paper: { latencyMs: 5, latency: { entryMs: 5 } }'))).toMatch(/paper\.latencyMs=5: give either paper\.latencyMs .* or paper\.latency, not both/);
    expect(fails(paper('paper: { latency: { entryMs: { median: 9, p99: 3 } } }'))).toMatch(/paper\.latency\.entryMs/);
    expect(fails(paper('paper: { latency: { cancelMs: { mean: 3 } } }'))).toMatch(/paper\.latency\.cancelMs/);
    expect(cfg(paper('paper: { latency: { entryMs: { file: lat/entry.txt, order: recorded } } }')).paper.latency.entryMs).toEqual({ file: path.resolve('/p/lat/entry.txt'), order: 'recorded' });
    expect(fails(paper('paper: { latency: { entryMs: { file: lat/entry.txt, order: sorted } } }'))).toMatch(/paper\.latency\.entryMs/);
  });
});

describe('plugin parameter errors carry the line', () => {
  it('strategies[i].params.<path> with value and line, through the strategy loader', async () => {
    const { loadStrategies } = await import('../strategy/loader.js');
    const text = `mode: paper
sandbox: { config: sb.yaml }
strategies:
  - name: e
    plugin: ${path.join(root, 'src/strategy/test-plugins/echo.ts')}
    symbols: [BTC_IDR]
    params:
      qty: "0.01"
      spread: -3
`;
    const { config, source } = parseConfig(text, '/cfg/p.yaml');
    const err = await loadStrategies(config.strategies, config.dir, source.errorAt()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/^\/cfg\/p\.yaml: strategies\[0\]\.params\.spread=-3: .*\(line 9, column 15\)$/);
  });
});

describe('config files and the published schema', () => {
  it('config/schema.json is up to date (regenerate: npx tsx src/config/jsonSchema.ts)', () => {
    expect(readFileSync(path.join(root, SCHEMA_FILE), 'utf8')).toBe(jsonSchemaText());
  });

  const dir = path.join(root, 'config');
  // Run configurations only: the folder also holds sandbox exchange configs (another format).
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => /\.ya?ml$/.test(f) && /^mode:/m.test(readFileSync(path.join(dir, f), 'utf8'))) : [];
  it.each(files)('config/%s validates against the schema', (f) => {
    expect(() => loadConfig(path.join(dir, f))).not.toThrow();
  });
});
