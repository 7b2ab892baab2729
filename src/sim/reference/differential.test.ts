/**
 * Differential test: 100,000 randomized operations through the scaled-integer engine and through the
 * plain decimal.js reference, comparing every execution report, every trade, and periodically every
 * balance and the whole book. Any difference fails with the operation that caused it.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../core/decimal.js';
import { MatchingEngine } from '../engine.js';
import type { EngineEvent } from '../events.js';
import { account, symbolInfo } from '../fixtures.js';
import { RefEngine, type RefRequest } from './refEngine.js';
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

describe('differential: engine vs decimal.js reference', () => {
  it(`agrees on ${OPS.toLocaleString('en-US')} randomized operations`, () => {
    const balances = { USDT: '2500', BTC: '25' };
    const eng = new MatchingEngine({
      symbols: [
        {
          info: symbolInfo('BTC_USDT', [
            { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '100000', tickSize: '0.01' },
            { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '50', stepSize: '0.001' },
            { filterType: 'NOTIONAL', minNotional: '1', maxNotional: '0', applyToMarket: false, avgPriceMins: 0 },
          ]),
        },
      ],
      accounts: ACCOUNTS.map((id, i) => account(id, balances, { maker: ['0.001', '0.0015', '0'][i]!, taker: ['0.002', '0.00075', '0.001'][i]! })),
    });
    const ref = new RefEngine({
      tick: new Decimal('0.01'),
      step: new Decimal('0.001'),
      minQty: new Decimal('0.001'),
      maxQty: new Decimal('50'),
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
    const r = mulberry32(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const price = (): Decimal => new Decimal(9990 + Math.floor(r() * 21)).div(100);
    const qty = (max: number): Decimal => new Decimal(1 + Math.floor(r() * max)).div(1000);
    const ids: { acct: string; id: number }[] = [];
    const counts = { accepted: 0, rejected: 0, trades: 0 };
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
          const ice = tif === 'GTC' && r() < 0.15 && q.gt('0.002') ? q.div(2 + Math.floor(r() * 3)).toDecimalPlaces(3, Decimal.ROUND_DOWN) : undefined;
          req = { accountId: acct, side, type: 'LIMIT', tif, price: price(), quantity: q, stp, ...(ice ? { icebergQty: ice } : {}) };
        } else if (x < 0.8) req = { accountId: acct, side, type: 'LIMIT_MAKER', price: price(), quantity: qty(2000), stp };
        else if (x < 0.95 || side === 'SELL') req = { accountId: acct, side, type: 'MARKET', quantity: qty(3000), stp };
        else req = { accountId: acct, side, type: 'MARKET', quoteOrderQty: new Decimal(1 + Math.floor(r() * 30000)).div(100), stp };
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
        if (ours.ok !== theirs.ok || (!ours.ok && !theirs.ok && ours.reason !== theirs.reason)) expect(ours.ok ? 'ok' : ours.reason, what()).toBe(theirs.ok ? 'ok' : theirs.reason);
        if (ours.ok && theirs.ok) {
          if (Number(ours.orderId) !== theirs.id) expect(Number(ours.orderId), what()).toBe(theirs.id);
          ids.push({ acct, id: theirs.id });
          counts.accepted++;
        } else counts.rejected++;
      }
      const mine = asLog(eng.takeEvents());
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
  });
});
