/** Parsing of execution rules, reference prices, listen tokens and the system config. */
import { ParseError, type PriceRangeRule, type ReferencePrice } from '../../core/index.js';
import { amountValue, asArray, asObject, int, isObjectLike, optAmount, optInt, str } from './fields.js';
import type { ExecutionRules, ListenToken, SystemConfig } from './records.js';

/** Parses `{symbolRules: [{symbol, rules: [...]}]}` (no envelope on the wire). */
export function parseExecutionRules(v: unknown, where = 'executionRules'): ExecutionRules {
  const o = asObject(where, v);
  const priceRange: PriceRangeRule[] = [];
  const other: { symbol: string; rule: Readonly<Record<string, unknown>> }[] = [];
  asArray(`${where}.symbolRules`, o.symbolRules).forEach((sr, i) => {
    const w = `${where}.symbolRules[${i}]`;
    const so = asObject(w, sr);
    const symbol = str(so, 'symbol', w, false);
    asArray(`${w}.rules`, so.rules).forEach((r, j) => {
      const rw = `${w}.rules[${j}]`;
      const ro = asObject(rw, r);
      if (str(ro, 'ruleType', rw) !== 'PRICE_RANGE') {
        other.push({ symbol, rule: ro });
        return;
      }
      const up = optAmount(ro, 'bidLimitMultUp', rw);
      const down = optAmount(ro, 'bidLimitMultDown', rw);
      const aUp = optAmount(ro, 'askLimitMultUp', rw);
      const aDown = optAmount(ro, 'askLimitMultDown', rw);
      priceRange.push({
        symbol,
        ...(up !== undefined ? { bidLimitMultUp: up } : {}),
        ...(down !== undefined ? { bidLimitMultDown: down } : {}),
        ...(aUp !== undefined ? { askLimitMultUp: aUp } : {}),
        ...(aDown !== undefined ? { askLimitMultDown: aDown } : {}),
      });
    });
  });
  return { priceRange, other };
}

/** Parses a reference price object. */
export function parseReferencePrice(v: unknown, where = 'referencePrice'): ReferencePrice {
  const o = asObject(where, v);
  const ct = o.calculationType;
  if (ct !== undefined && ct !== null && ct !== 'ARITHMETIC_MEAN' && ct !== 'EXTERNAL') throw new ParseError(`${where}.calculationType`, ct, 'expected ARITHMETIC_MEAN or EXTERNAL');
  const ext = optInt(o, 'externalCalculationId', where);
  return {
    symbol: str(o, 'symbol', where, false),
    referencePrice: o.referencePrice === null || o.referencePrice === undefined ? null : amountValue(`${where}.referencePrice`, o.referencePrice),
    timestamp: int(o, 'timestamp', where),
    ...(ct === 'ARITHMETIC_MEAN' || ct === 'EXTERNAL' ? { calculationType: ct } : {}),
    ...(ext !== undefined ? { externalCalculationId: ext } : {}),
  };
}

/** Parses a listen token `{token, expirationTime}`. */
export function parseListenToken(v: unknown, where = 'listenToken'): ListenToken {
  const o = asObject(where, v);
  return { token: str(o, 'token', where, false), expirationTime: int(o, 'expirationTime', where) };
}

/**
 * Finds the WebSocket API address in a system-config payload: the spec names only the suffix
 * (a vendor word precedes it), so the first key ending with `WssApiBaseUrl` wins, searched in
 * `data` and one level of nested objects.
 */
export function parseSystemConfig(v: unknown): SystemConfig {
  let wsApiUrl: string | undefined;
  let wsApiUrlList: string[] = [];
  const visit = (o: Readonly<Record<string, unknown>>, depth: number): void => {
    for (const [k, val] of Object.entries(o)) {
      if (wsApiUrl === undefined && k.endsWith('WssApiBaseUrl') && typeof val === 'string' && val !== '') wsApiUrl = val;
      else if (k.endsWith('WssApiBaseUrlList') && wsApiUrlList.length === 0) wsApiUrlList = parseUrlList(k, val);
      else if (depth < 1 && isObjectLike(val)) visit(val, depth + 1);
    }
  };
  visit(asObject('systemConfig', v), 0);
  return { wsApiUrl, wsApiUrlList, raw: v };
}

function parseUrlList(key: string, v: unknown): string[] {
  // The list may come as an array or as a comma-separated / JSON-encoded string.
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.startsWith('[')) {
      try {
        return parseUrlList(key, JSON.parse(t) as unknown);
      } catch {
        throw new ParseError(`systemConfig.${key}`, v, 'malformed JSON list');
      }
    }
    return t.split(',').map((s) => s.trim()).filter((s) => s !== '');
  }
  return [];
}
