/**
 * Seeded random replay flows for the engine's replay tests: depth diffs (as wire strings and as
 * scaled levels at various scales), snapshots, replayed trades, and own orders and cancels resting
 * near the touch, so that queue positions, crossing diffs, trades through own prices and own takers
 * against replayed levels all happen often. The same seed gives the same flow.
 */
import { mulberry32 } from '../core/random.js';
import { scaledLevels, type ScaledLevels } from '../core/scaledLevels.js';
import type { MatchingEngine } from './engine.js';
import { account } from './fixtures.js';
import { fmt } from './scaled.js';
import { makeEngine } from './testkit.js';
import type { EngineConfig } from './types.js';

/** Price and quantity decimals the flow's engine keeps (replayed quantities finer than the 0.001 step). */
export const FLOW_PD = 2;
export const FLOW_QD = 5;

/** One replayed level: the wire strings and the scaled values at the flow's scales. */
interface FlowLevel {
  readonly price: string;
  readonly qty: string;
  readonly p: number;
  readonly q: number;
}

/** One step of a flow. */
export type FlowOp =
  | { readonly k: 'diff' | 'snapshot'; readonly bids: readonly FlowLevel[]; readonly asks: readonly FlowLevel[]; readonly extraScale: number }
  | { readonly k: 'trade'; readonly price: string; readonly qty: string; readonly m: boolean }
  | { readonly k: 'limit'; readonly acct: string; readonly side: 'BUY' | 'SELL'; readonly price: string; readonly qty: string; readonly tif: 'GTC' | 'IOC'; readonly ice: boolean }
  | { readonly k: 'market'; readonly acct: string; readonly side: 'BUY' | 'SELL'; readonly qty: string }
  | { readonly k: 'cancel'; readonly acct: string; readonly nth: number };

/** A random flow of `n` steps around a drifting mid price of about 100. */
export function replayFlow(seed: number, n: number): FlowOp[] {
  const rnd = mulberry32(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  let mid = 10_000;
  const level = (p: number, zeroShare: number): FlowLevel => {
    const q = rnd() < zeroShare ? 0 : int(1, 400_000);
    // Wire strings sometimes carry trailing zeros, as recordings do ("0.10000000").
    const pad = (v: string): string => (rnd() < 0.3 ? (v.includes('.') ? `${v}000` : `${v}.000`) : v);
    return { p, q, price: pad(fmt(p, FLOW_PD)), qty: pad(fmt(q, FLOW_QD)) };
  };
  const side = (isBid: boolean, count: number, spread: number, zeroShare: number, cross: boolean): FlowLevel[] => {
    const out: FlowLevel[] = [];
    const seen = new Set<number>();
    for (let i = 0; i < count; i++) {
      const off = cross ? -int(0, 3) : int(1, spread);
      const p = isBid ? mid - off : mid + off;
      if (p <= 0 || seen.has(p)) continue;
      seen.add(p);
      out.push(level(p, zeroShare));
    }
    return out;
  };
  const ops: FlowOp[] = [];
  for (let i = 0; i < n; i++) {
    if (rnd() < 0.1) mid += int(-3, 3);
    const r = rnd();
    const acct = rnd() < 0.5 ? 'a' : 'b';
    const buy = rnd() < 0.5;
    if (i === 0 || r < 0.01) {
      ops.push({ k: 'snapshot', bids: side(true, int(0, 60), 80, 0, false), asks: side(false, int(0, 60), 80, 0, false), extraScale: int(-2, 3) });
    } else if (r < 0.55) {
      // Now and then one side crosses the mid (where own orders rest): crossing diffs and stale levels.
      const crossBid = rnd() < 0.04;
      const crossAsk = !crossBid && rnd() < 0.04;
      ops.push({ k: 'diff', bids: side(true, int(0, 12), rnd() < 0.2 ? 300 : 25, 0.35, crossBid), asks: side(false, int(0, 12), rnd() < 0.2 ? 300 : 25, 0.35, crossAsk), extraScale: int(-2, 3) });
    } else if (r < 0.75) {
      ops.push({ k: 'trade', price: fmt(mid + int(-4, 4), FLOW_PD), qty: fmt(int(1, 200_000), FLOW_QD), m: rnd() < 0.5 });
    } else if (r < 0.9) {
      const off = int(-3, 6);
      ops.push({ k: 'limit', acct, side: buy ? 'BUY' : 'SELL', price: fmt(buy ? mid - off : mid + off, FLOW_PD), qty: fmt(int(1, 500) * 100, FLOW_QD), tif: rnd() < 0.9 ? 'GTC' : 'IOC', ice: rnd() < 0.1 });
    } else if (r < 0.92) {
      ops.push({ k: 'market', acct, side: buy ? 'BUY' : 'SELL', qty: fmt(int(1, 300) * 100, FLOW_QD) });
    } else {
      ops.push({ k: 'cancel', acct, nth: int(0, 1000) });
    }
  }
  return ops;
}

/** An engine for flows: the test symbol at the flow's scales, two rich accounts. */
export function flowEngine(config: Partial<EngineConfig> = {}): MatchingEngine {
  const rich = { USDT: '100000000', BTC: '1000000' };
  return makeEngine({ symbol: { priceDecimals: FLOW_PD, quantityDecimals: FLOW_QD }, accounts: [account('a', rich), account('b', rich)], config });
}

/**
 * Scaled levels of one flow side at `extraScale` more decimals than the flow's (negative: fewer,
 * as far as every value allows, so both the multiply and the exact-divide conversions run).
 */
export function flowScaled(levels: readonly FlowLevel[], extraScale: number): ScaledLevels {
  const out = scaledLevels(Math.max(1, levels.length));
  const shift = (v: number, k: number): number => (k >= 0 ? v * 10 ** k : v / 10 ** -k);
  const fits = (k: number, vals: number[]): boolean => k >= 0 || vals.every((v) => v % 10 ** -k === 0);
  const pk = Math.max(extraScale, -FLOW_PD);
  const qk = Math.max(extraScale, -FLOW_QD);
  const pShift = fits(pk, levels.map((l) => l.p)) ? pk : 0;
  const qShift = fits(qk, levels.map((l) => l.q)) ? qk : 0;
  out.n = levels.length;
  out.priceScale = FLOW_PD + pShift;
  out.qtyScale = FLOW_QD + qShift;
  levels.forEach((l, i) => {
    out.prices[i] = shift(l.p, pShift);
    out.qtys[i] = shift(l.q, qShift);
  });
  return out;
}

/** Runs one flow step; `scaled` sends diffs through applyDepthDiffScaled instead of the strings. */
export function applyFlowOp(e: MatchingEngine, op: FlowOp, now: number, scaled = false): void {
  const sym = 'BTC_USDT';
  switch (op.k) {
    case 'snapshot':
      e.applyDepthSnapshot(sym, { bids: op.bids, asks: op.asks }, now);
      return;
    case 'diff':
      if (scaled) e.applyDepthDiffScaled(sym, flowScaled(op.bids, op.extraScale), flowScaled(op.asks, op.extraScale), now);
      else e.applyDepthDiff(sym, { bids: op.bids, asks: op.asks }, now);
      return;
    case 'trade':
      e.applyTrade(sym, { price: op.price, qty: op.qty, isBuyerMaker: op.m }, now);
      return;
    case 'limit':
      e.placeOrder({ accountId: op.acct, symbol: sym, side: op.side, type: 'LIMIT', price: op.price, quantity: op.qty, timeInForce: op.tif, ...(op.ice && op.tif === 'GTC' && Number(op.qty) >= 0.004 ? { icebergQty: (Math.floor((Number(op.qty) * 1000) / 3) / 1000).toFixed(3) } : {}) }, now);
      return;
    case 'market':
      e.placeOrder({ accountId: op.acct, symbol: sym, side: op.side, type: 'MARKET', quantity: op.qty }, now);
      return;
    case 'cancel': {
      const open = e.openOrders(op.acct, sym);
      if (open.length > 0) e.cancelOrder({ accountId: op.acct, orderId: open[op.nth % open.length]!.orderId }, now);
      return;
    }
    default: {
      const never: never = op;
      throw new Error(`unknown flow op ${String(never)}`);
    }
  }
}
