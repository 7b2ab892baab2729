/**
 * The market maker's integer path against its Decimal rule: the same quotes (value, text and
 * decimal.js's digits) for random mids, positions and parameters, and the same intents from the
 * whole refresh (quotes, requotes, room, minimum quantity) over random books and open orders.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, decimalOfScaled, type DepthDiffEvent, type OwnOrderView } from 'kancil';
import { fakeContext, fixedBook } from 'kancil/testing';
import { makeMarketMaker, marketMakerParams, positionQuote, powerOfTenPlaces, quotePrices, quoteTicks } from './market-maker.js';

/** A Decimal's text and decimal.js's sign, exponent and digit words: equal only when built alike. */
const shape = (x: Decimal | undefined) => (x === undefined ? undefined : { text: x.toString(), s: x.s, e: x.e, d: x.d });

/** m x 10^-k as a Decimal. */
const dec = (m: bigint | number, k: number) => new Decimal(`${m}e${-k}`);

const bps = fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: 1, max: 200_000 }).map((n) => n / 100));
const quantity = fc.tuple(fc.integer({ min: 1, max: 2_000_000 }), fc.integer({ min: 0, max: 8 })).map(([m, k]) => dec(m, k));
const position = fc.oneof(
  fc.tuple(fc.integer({ min: -3_000_000, max: 3_000_000 }), fc.integer({ min: 0, max: 9 })).map(([m, k]) => dec(m, k)),
  // Positions no grid holds (a commission of many digits, a third).
  fc.integer({ min: -1000, max: 1000 }).map((n) => new Decimal(n).div(3)),
);

describe('market-maker integer quotes (differential vs quotePrices)', () => {
  it('gives quotePrices\' bid and ask, value and digits, or declines', () => {
    let integer = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.oneof(fc.integer({ min: 1, max: 2_000_000 }), fc.integer({ min: 1, max: 2 ** 47 })),
        fc.integer({ min: -3, max: 400 }),
        position,
        bps,
        fc.oneof(fc.constant(0), bps),
        quantity,
        fc.boolean(),
        (k, bidT, gap, pos, spreadBps, skewBps, maxPosition, allowShort) => {
          const cfg = { spreadBps, skewBps, maxPosition, tickSize: dec(1, k), allowShort };
          const askT = bidT + gap;
          const bb = dec(bidT, k);
          const ba = dec(askT, k);
          const want = quotePrices(bb.plus(ba).div(2), pos, cfg, { bestBid: bb, bestAsk: ba });
          const got = quoteTicks(bidT, askT, positionQuote(pos, cfg));
          runs++;
          if (got === undefined) return;
          integer++;
          expect(shape(got.bid === undefined ? undefined : decimalOfScaled(got.bid, k))).toEqual(shape(want.bid));
          expect(shape(got.ask === undefined ? undefined : decimalOfScaled(got.ask, k))).toEqual(shape(want.ask));
        },
      ),
      { numRuns: 20_000 },
    );
    // Declining is for factors of many digits (a position of thirds, or over a maximum such as
    // 0.01234567) and products past 2^53: about half of these draws, never a usual setting.
    expect(integer).toBeGreaterThan(runs * 0.4);
    const usual = { spreadBps: 2, skewBps: 1, maxPosition: new Decimal('0.01'), tickSize: new Decimal('0.01'), allowShort: false };
    expect(quoteTicks(6_160_201, 6_160_202, positionQuote(new Decimal('0.00634'), usual))).toEqual({ bid: 6_159_194, ask: 6_160_427 });
  });

  it('knows which steps are powers of ten', () => {
    expect(['1', '0.01', '0.00001', '1e-15', '10', '0.05', '0.0101', '1e-16'].map((x) => powerOfTenPlaces(new Decimal(x)))).toEqual([0, 2, 5, 15, -1, -1, -1, -1]);
  });
});

describe('market-maker refresh (differential: integer path vs Decimal rule)', () => {
  const diff = (E: number): DepthDiffEvent => ({ type: 'depthDiff', E, symbol: 'BTC_USDT', firstUpdateId: E, finalUpdateId: E, bids: [], asks: [] });
  const order = fc.record({
    side: fc.constantFrom('BUY' as const, 'SELL' as const),
    state: fc.constantFrom('NEW' as const, 'NEW' as const, 'PARTIALLY_FILLED' as const, 'PENDING' as const),
    offset: fc.integer({ min: -300, max: 300 }),
    qty: fc.integer({ min: 1, max: 5000 }),
    filled: fc.integer({ min: 0, max: 100 }),
    offGrid: fc.integer({ min: 0, max: 9 }),
  });
  const step = fc.record({
    bidT: fc.integer({ min: 1, max: 20_000_000 }),
    gap: fc.integer({ min: -2, max: 200 }),
    offGrid: fc.integer({ min: 0, max: 19 }),
    pos: position,
    free: quantity,
    orders: fc.array(order, { maxLength: 4 }),
  });
  const params = fc.record({
    spreadBps: bps,
    skewBps: fc.oneof(fc.constant(0), bps),
    quantity: quantity.map(String),
    maxPosition: quantity.map(String),
    minQuantity: fc.oneof(fc.constant('0'), quantity.map(String)),
    tickK: fc.integer({ min: 0, max: 4 }),
    stepK: fc.integer({ min: 0, max: 8 }),
    requoteTicks: fc.integer({ min: 0, max: 60 }),
    allowShort: fc.boolean(),
  });

  it('sends the same intents, prices and quantities digit for digit', () => {
    fc.assert(
      fc.property(params, fc.array(step, { minLength: 1, maxLength: 12 }), (pp, steps) => {
        const { tickK, stepK, ...rest } = pp;
        const parsed = marketMakerParams.parse({ ...rest, tickSize: dec(1, tickK).toString(), stepSize: dec(1, stepK).toString(), refreshMs: 0 });
        const run = (integers: boolean) => {
          const ctx = fakeContext(parsed);
          const h = makeMarketMaker(ctx, integers);
          let free = new Decimal(0);
          ctx.balance = () => ({ free, locked: new Decimal(0) });
          const out: unknown[] = [];
          steps.forEach((s, i) => {
            const tick = dec(1, tickK);
            // A price off the tick grid now and then (the integer path then takes the Decimal rule).
            const bb = dec(s.bidT, tickK).plus(s.offGrid === 0 ? dec(1, tickK + 3) : 0);
            ctx.books.set('BTC_USDT', fixedBook('BTC_USDT', bb.toString(), dec(s.bidT + s.gap, tickK).toString()));
            ctx.positions.set('BTC', s.pos);
            free = s.free;
            ctx.orders = s.orders.map(
              (o, j): OwnOrderView => ({
                clientId: `o${i}-${j}`,
                orderId: undefined,
                symbol: 'BTC_USDT',
                side: o.side,
                orderType: 'LIMIT_MAKER',
                state: o.state,
                price: bb.plus(tick.mul(o.offset)).plus(o.offGrid === 0 ? dec(1, tickK + 2) : 0),
                quantity: dec(o.qty, stepK),
                cumQty: dec(Math.min(o.filled, o.qty), stepK),
              }),
            );
            ctx.now = i;
            h.onEvent(diff(i));
          });
          for (const x of ctx.intents) out.push(x.kind === 'place' ? { side: x.req.side, price: shape(x.req.price), qty: shape(x.req.quantity) } : x);
          return out;
        };
        expect(run(true)).toEqual(run(false));
      }),
      { numRuns: 3_000 },
    );
  });
});
