/**
 * Differential test: 100,000 randomized operations through the scaled-integer engine and through the
 * plain decimal.js reference, comparing every execution report, every trade, and periodically every
 * balance and the whole book. Any difference fails with the operation that caused it.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../core/decimal.js';
import { MatchingEngine } from '../engine.js';
import type { EngineEvent, ScaledExecutionReport } from '../events.js';
import { account, symbolInfo } from '../fixtures.js';
import { RefEngine, type RefRequest } from './refEngine.js';
import { wireReport } from '../views.js';
import { mulberry32 } from '../../core/random.js';

const OPS = 100_000;
const ACCOUNTS = ['a', 'b', 'c'];
const STP: RefRequest['stp'][] = ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'DECREMENT'];


/** Our events in the reference's log format. */
function asLog(events: readonly EngineEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type === 'executionReport') {
      const f = e.x === 'TRADE' ? ` ${e.l}@${e.L} fee ${e.n}` : '';
      out.push(`${e.accountId} ${e.i} ${e.x}/${e.X}${f} z=${e.z}${e.eR !== 'NONE' ? ` ${e.eR}` : ''}`);
    } else if (e.type === 'trade') out.push(`T${e.id} ${e.price} ${e.qty} ${e.buyerOrderId}/${e.sellerOrderId}`);
  }
  return out;
}

/**
 * One market for the differential run. `narrow` keeps every product of price, quantity and scale
 * factor below 2^53 (the engine's double fast paths); `deep` does too, on balances beyond 2^53; `wide` uses 8-decimal prices and quantities at
 * large magnitudes so those products pass 2^53 and the exact bigint fallbacks decide instead.
 */
interface Market {
  readonly name: string;
  readonly ops: number;
  readonly tick: string;
  readonly step: string;
  readonly maxQty: string;
  readonly balances: { readonly USDT: string; readonly BTC: string };
  /** Price around which orders are placed, in ticks, and the spread of the random prices in ticks. */
  readonly midTicks: number;
  readonly spreadTicks: number;
  /** Quantities are 1..max steps (max 2000 for limits, 3000 for markets) times this many steps. */
  readonly stepsPerUnit: number;
  /** quoteOrderQty range in quote units. */
  readonly quoteMax: number;
}

const MARKETS: readonly Market[] = [
  { name: 'narrow', ops: OPS, tick: '0.01', step: '0.001', maxQty: '50', balances: { USDT: '2500', BTC: '25' }, midTicks: 9990, spreadTicks: 21, stepsPerUnit: 1, quoteMax: 300 },
  // Prices near 100,000.00000000 (1e13 ticks) and quantities to 0.3 (3e4 steps of 0.00001): notionals reach 3e17 at
  // notional scale. quoteOrderQty stays below 900: the engine takes it as a safe integer at notional scale (13 decimals).
  // Narrow prices and quantities on balances beyond 2^53 at the asset scales (1e21 USDT units at 10 decimals, 1e17
  // BTC units at 8): the balances sit in the bigint part while the trades move the number part (amount.ts).
  { name: 'deep', ops: 20_000, tick: '0.01', step: '0.001', maxQty: '50', balances: { USDT: '100000000000', BTC: '1000000000' }, midTicks: 9990, spreadTicks: 21, stepsPerUnit: 1, quoteMax: 300 },
  { name: 'wide', ops: 20_000, tick: '0.00000001', step: '0.00001', maxQty: '50', balances: { USDT: '250000000', BTC: '2500' }, midTicks: 9_999_999_999_990, spreadTicks: 21, stepsPerUnit: 10, quoteMax: 800 },
];

describe('differential: engine vs decimal.js reference', () => {
  for (const mk of MARKETS) it(`agrees on ${mk.ops.toLocaleString('en-US')} randomized operations (${mk.name} scales)`, () => runDifferential(mk));
});

function runDifferential(mk: Market): void {
  {
    const OPS = mk.ops;
    const balances = mk.balances;
    const eng = new MatchingEngine({
      symbols: [
        {
          info: symbolInfo('BTC_USDT', [
            { filterType: 'PRICE_FILTER', minPrice: mk.tick, maxPrice: '1000000', tickSize: mk.tick },
            { filterType: 'LOT_SIZE', minQty: mk.step, maxQty: mk.maxQty, stepSize: mk.step },
            { filterType: 'NOTIONAL', minNotional: '1', maxNotional: '0', applyToMarket: false, avgPriceMins: 0 },
          ]),
        },
      ],
      accounts: ACCOUNTS.map((id, i) => account(id, balances, { maker: ['0.001', '0.0015', '0'][i]!, taker: ['0.002', '0.00075', '0.001'][i]! })),
    });
    const ref = new RefEngine({
      tick: new Decimal(mk.tick),
      step: new Decimal(mk.step),
      minQty: new Decimal(mk.step),
      maxQty: new Decimal(mk.maxQty),
      minNotional: new Decimal('1'),
      base: 'BTC',
      quote: 'USDT',
      accounts: ACCOUNTS.map((id, i) => ({
        id,
        maker: new Decimal(['0.001', '0.0015', '0'][i]!),
        taker: new Decimal(['0.002', '0.00075', '0.001'][i]!),
        balances: { USDT: new Decimal(balances.USDT), BTC: new Decimal(balances.BTC) },
      })),
    });
    // A scaled-report listener next to the buffer: each of its reports, formatted, must be the
    // buffered wire report (both forms are built from the same state; the wide market's amounts
    // pass 2^53, so the bigint forms are compared too).
    const scaled: ScaledExecutionReport[] = [];
    eng.subscribe((e) => void (e.type === 'scaledExecutionReport' && scaled.push(e)), { marketData: false, accountPositions: false, reports: 'scaled' });
    const r = mulberry32(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const tick = new Decimal(mk.tick);
    const step = new Decimal(mk.step);
    const price = (): Decimal => new Decimal(mk.midTicks + Math.floor(r() * mk.spreadTicks)).mul(tick);
    // Quantity steps: 1..max units of stepsPerUnit steps, plus a random remainder so the last digits vary.
    const qty = (max: number): Decimal => new Decimal((1 + Math.floor(r() * max)) * mk.stepsPerUnit + (mk.stepsPerUnit > 1 ? Math.floor(r() * mk.stepsPerUnit) : 0)).mul(step);
    const ids: { acct: string; id: number }[] = [];
    const counts = { accepted: 0, rejected: 0, trades: 0 };
    // quoteOrderQty budgets: random ones, more than the whole book, and ones built from the book just
    // below, at and just above the midpoint between what k and k+1 steps cost (rounding down closer, a
    // tie, rounding up closer), some with the free balance cut to the budget for the order so that the
    // closer k+1 is unaffordable.
    const picks = new Map<string, number>();
    const notional = tick.decimalPlaces() + step.decimalPlaces();
    const unit = new Decimal(1).div(new Decimal(10).pow(notional));
    let restore: Decimal | undefined;
    const costOn = (asks: readonly { price: Decimal; qty: Decimal }[], q: Decimal): Decimal => {
      let left = q;
      let cost = new Decimal(0);
      for (const l of asks) {
        const t = Decimal.min(left, l.qty);
        cost = cost.plus(t.mul(l.price));
        left = left.minus(t);
      }
      return cost;
    };
    const quoteCase = (acct: string, now: number): { budget: Decimal; restore?: Decimal } => {
      const random = { budget: new Decimal(1 + Math.floor(r() * mk.quoteMax * 100)).div(100) };
      const mode = r();
      if (mode < 0.3) return random;
      const asks = eng.depth('BTC_USDT', 10_000).asks;
      const steps = asks.reduce((sum, l) => sum.plus(l.qty), new Decimal(0)).div(step).floor().toNumber();
      if (steps < 2) return random;
      if (mode < 0.4) {
        // More than the whole book costs: no step more to take.
        const all = costOn(asks, new Decimal(steps).mul(step)).plus(unit.mul(1 + Math.floor(r() * 1000)));
        return all.lte(mk.quoteMax) ? { budget: all } : random;
      }
      // At most as many steps as quoteMax buys at the best price, so most budgets stay within it.
      const affordable = new Decimal(mk.quoteMax).div(asks[0]!.price.mul(step)).floor().toNumber();
      const k = new Decimal(1 + Math.floor(r() * Math.max(1, Math.min(steps - 1, affordable - 1)))).mul(step);
      const down = costOn(asks, k);
      const up = costOn(asks, k.plus(step));
      if (up.gt(mk.quoteMax)) return random;
      const mid = down.plus(up).div(2);
      const side = r();
      const budget = side < 0.34 ? mid.toDecimalPlaces(notional, Decimal.ROUND_DOWN).minus(unit) : side < 0.67 ? mid.toDecimalPlaces(notional, Decimal.ROUND_HALF_UP) : mid.toDecimalPlaces(notional, Decimal.ROUND_UP).plus(unit);
      if (mode < 0.75) return { budget };
      // All in: the free balance is exactly the budget while the order is placed, then set back.
      const free = eng.balances(acct).find((b) => b.asset === 'USDT')!.free;
      const delta = budget.minus(free);
      // Only a cut: money lent for the order might be spent and could not be taken back.
      if (delta.gt(0)) return { budget };
      eng.adjustBalance(acct, 'USDT', delta, now);
      ref.adjust(acct, 'USDT', delta);
      return { budget, restore: delta.neg() };
    };
    for (let i = 0; i < OPS; i++) {
      const acct = pick(ACCOUNTS);
      const x = r();
      // Described only on a mismatch: building messages for every operation would dominate the run.
      let what: () => string;
      if (x < 0.27) {
        const target = ids.length > 0 ? ids[Math.max(0, ids.length - 1 - Math.floor(r() * 40))]! : { acct, id: 1 };
        what = () => `cancel ${target.acct} ${target.id}`;
        const ours = eng.cancelOrder({ accountId: target.acct, orderId: target.id }, i);
        const theirs = ref.cancel(target.acct, target.id);
        if (ours.ok !== theirs) expect(ours.ok, what()).toBe(theirs);
      } else {
        const side = r() < 0.5 ? ('BUY' as const) : ('SELL' as const);
        const stp = pick(STP);
        let req: RefRequest;
        if (x < 0.72) {
          const tif = pick(['GTC', 'GTC', 'GTC', 'IOC', 'FOK'] as const);
          const q = qty(2000);
          const ice = tif === 'GTC' && r() < 0.15 && q.gt(step.mul(2)) ? q.div(2 + Math.floor(r() * 3)).toDecimalPlaces(step.decimalPlaces(), Decimal.ROUND_DOWN) : undefined;
          req = { accountId: acct, side, type: 'LIMIT', tif, price: price(), quantity: q, stp, ...(ice ? { icebergQty: ice } : {}) };
        } else if (x < 0.8) req = { accountId: acct, side, type: 'LIMIT_MAKER', price: price(), quantity: qty(2000), stp };
        else if (x < 0.95 || side === 'SELL') req = { accountId: acct, side, type: 'MARKET', quantity: qty(3000), stp };
        else {
          const q = quoteCase(acct, i);
          req = { accountId: acct, side, type: 'MARKET', quoteOrderQty: q.budget, stp };
          restore = q.restore;
          ref.lastQuotePick = null;
        }
        what = () => JSON.stringify(req);
        const ours = eng.placeOrder(
          {
            accountId: req.accountId,
            symbol: 'BTC_USDT',
            side: req.side,
            type: req.type,
            stpMode: req.stp,
            ...(req.type === 'LIMIT' ? { timeInForce: req.tif } : {}),
            ...(req.price ? { price: req.price } : {}),
            ...(req.quantity ? { quantity: req.quantity } : {}),
            ...(req.quoteOrderQty ? { quoteOrderQty: req.quoteOrderQty } : {}),
            ...(req.icebergQty ? { icebergQty: req.icebergQty } : {}),
          },
          i,
        );
        const theirs = ref.place(req);
        if (req.quoteOrderQty && ref.lastQuotePick !== null) picks.set(ref.lastQuotePick, (picks.get(ref.lastQuotePick) ?? 0) + 1);
        if (restore !== undefined) {
          eng.adjustBalance(acct, 'USDT', restore, i);
          ref.adjust(acct, 'USDT', restore);
          restore = undefined;
        }
        if (ours.ok !== theirs.ok || (!ours.ok && !theirs.ok && ours.reason !== theirs.reason)) expect(ours.ok ? 'ok' : ours.reason, what()).toBe(theirs.ok ? 'ok' : theirs.reason);
        if (ours.ok && theirs.ok) {
          if (Number(ours.orderId) !== theirs.id) expect(Number(ours.orderId), what()).toBe(theirs.id);
          ids.push({ acct, id: theirs.id });
          counts.accepted++;
        } else counts.rejected++;
      }
      const events = eng.takeEvents();
      const wire = JSON.stringify(events.filter((e) => e.type === 'executionReport'));
      const formatted = JSON.stringify(scaled.splice(0).map(wireReport));
      if (wire !== formatted) expect(formatted, `scaled reports of op ${i}`).toBe(wire);
      const mine = asLog(events);
      const theirs = ref.log.splice(0);
      counts.trades += theirs.filter((l) => l.startsWith('T')).length;
      if (mine.length !== theirs.length || mine.some((m, j) => m !== theirs[j])) expect(mine, `op ${i}: ${what()}`).toEqual(theirs);
      if (i % 1000 === 999 || i === OPS - 1) {
        for (const a of ACCOUNTS) {
          const ours = eng.balances(a).map((b) => `${b.asset} ${b.free.toFixed()}/${b.locked.toFixed()}`);
          expect(ours, `balances of ${a} after op ${i}`).toEqual(ref.balances(a));
        }
        const d = eng.depth('BTC_USDT', 10_000);
        expect({ bids: d.bids.map((l) => `${l.price.toFixed()}x${l.qty.toFixed()}`), asks: d.asks.map((l) => `${l.price.toFixed()}x${l.qty.toFixed()}`) }, `book after op ${i}`).toEqual(ref.depth());
      }
    }
    // The flow must exercise the rules, not just refusals.
    expect(counts.accepted).toBeGreaterThan(OPS / 2);
    expect(counts.trades).toBeGreaterThan(OPS / 10);
    // ...and every way a quoteOrderQty buy picks its quantity.
    for (const pick of ['down', 'up', 'tie', 'down, up unaffordable', 'down, no up']) expect(picks.get(pick) ?? 0, `quoteOrderQty picks '${pick}' in ${JSON.stringify([...picks])}`).toBeGreaterThan(0);
  }
}
