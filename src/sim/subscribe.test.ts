import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import type { BookLevel } from '../core/types.js';
import type { MatchingEngine } from './engine.js';
import type { EngineEvent, ScaledEngineEvent } from './events.js';
import { makeEngine, place } from './testkit.js';
import { wireReport } from './views.js';

const lv = (p: string, q: string): BookLevel => ({ price: new Decimal(p), qty: new Decimal(q) });
const ACCOUNT_KINDS = new Set(['executionReport', 'outboundAccountPosition', 'listStatus']);

/** Every kind of operation: replayed depth and trades, own orders filled by both, an OCO, cancels, a reference price. */
function script(e: MatchingEngine): void {
  e.applyDepthSnapshot('BTC_USDT', { bids: [lv('99', '2'), lv('98', '1')], asks: [lv('101', '1'), lv('102', '3')] }, 1);
  const bid = place(e, 'a', 'BUY', { price: '99', quantity: '1' }, 2);
  e.applyDepthDiff('BTC_USDT', { bids: [lv('99', '0.5'), lv('97', '4')], asks: [lv('103', '1')] }, 3);
  e.applyTrade('BTC_USDT', { price: new Decimal('99'), qty: new Decimal('1'), isBuyerMaker: true }, 4);
  place(e, 'b', 'BUY', { type: 'MARKET', quantity: '1.5', price: undefined }, 5);
  place(e, 'a', 'SELL', { price: '105', quantity: '0.2' }, 6);
  const oco = e.placeOco({ accountId: 'b', symbol: 'BTC_USDT', side: 'SELL', quantity: '0.1', price: '110', stopPrice: '100', stopLimitPrice: '99' }, 7);
  expect(oco.ok).toBe(true);
  e.applyDepthDiff('BTC_USDT', { bids: [lv('100.5', '1')], asks: [lv('101', '0')] }, 8);
  place(e, 'b', 'SELL', { price: '99', quantity: '0.3' }, 9);
  e.setReferencePrice('BTC_USDT', new Decimal('100'), 10);
  e.cancelOrder({ accountId: 'a', orderId: bid }, 11);
  e.cancelAll('b', 'BTC_USDT', 12);
}

describe('subscribe with marketData: false', () => {
  const full = makeEngine();
  script(full);
  const all = full.takeEvents();
  const accountOnly = all.filter((ev) => ACCOUNT_KINDS.has(ev.type));

  it('the flow has events of both classes', () => {
    expect(new Set(all.map((ev) => ev.type))).toEqual(new Set(['executionReport', 'outboundAccountPosition', 'listStatus', 'trade', 'depthUpdate', 'referencePrice']));
  });

  it('delivers exactly the account events of the full stream, and builds no market data', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    const got: EngineEvent[] = [];
    e.subscribe((ev) => got.push(ev), { marketData: false });
    const before = e.lastUpdateId('BTC_USDT');
    script(e);
    expect(JSON.stringify(got)).toBe(JSON.stringify(accountOnly));
    // No depth diff was built, so the diff sequence did not advance (as with no listener at all).
    expect(e.lastUpdateId('BTC_USDT')).toBe(before);
  });

  it('next to a full listener, each gets its own stream and the full one is unchanged', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    const got: EngineEvent[] = [];
    const gotAll: EngineEvent[] = [];
    e.subscribe((ev) => got.push(ev), { marketData: false });
    const stop = e.subscribe((ev) => gotAll.push(ev));
    script(e);
    expect(JSON.stringify(gotAll)).toBe(JSON.stringify(all));
    expect(JSON.stringify(got)).toBe(JSON.stringify(accountOnly));
    // Once the full listener leaves, market data is no longer built.
    stop();
    const u = e.lastUpdateId('BTC_USDT');
    e.applyDepthDiff('BTC_USDT', { bids: [lv('90', '1')], asks: [] }, 13);
    expect(e.lastUpdateId('BTC_USDT')).toBe(u);
  });

  it('with the event buffer on, the buffer still gets everything', () => {
    const e = makeEngine();
    const got: EngineEvent[] = [];
    e.subscribe((ev) => got.push(ev), { marketData: false });
    script(e);
    expect(JSON.stringify(e.takeEvents())).toBe(JSON.stringify(all));
    expect(JSON.stringify(got)).toBe(JSON.stringify(accountOnly));
  });
});

describe('subscribe with accountPositions: false', () => {
  const full = makeEngine();
  script(full);
  const all = full.takeEvents();
  const reportsOnly = all.filter((ev) => ev.type === 'executionReport' || ev.type === 'listStatus');

  it('delivers the account events of the full stream without account positions', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    const got: EngineEvent[] = [];
    e.subscribe((ev) => got.push(ev), { marketData: false, accountPositions: false });
    script(e);
    expect(reportsOnly.length).toBeGreaterThan(0);
    expect(JSON.stringify(got)).toBe(JSON.stringify(reportsOnly));
  });

  it('next to a listener that wants positions, each gets its own stream and that one is unchanged', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    const got: EngineEvent[] = [];
    const gotAccount: EngineEvent[] = [];
    e.subscribe((ev) => got.push(ev), { marketData: false, accountPositions: false });
    e.subscribe((ev) => gotAccount.push(ev), { marketData: false });
    script(e);
    expect(JSON.stringify(got)).toBe(JSON.stringify(reportsOnly));
    expect(JSON.stringify(gotAccount)).toBe(JSON.stringify(all.filter((ev) => ACCOUNT_KINDS.has(ev.type))));
  });

  it('with the event buffer on, the buffer still gets everything', () => {
    const e = makeEngine();
    const got: EngineEvent[] = [];
    e.subscribe((ev) => got.push(ev), { marketData: false, accountPositions: false });
    script(e);
    expect(JSON.stringify(e.takeEvents())).toBe(JSON.stringify(all));
    expect(JSON.stringify(got)).toBe(JSON.stringify(reportsOnly));
  });
});

describe("subscribe with reports: 'scaled'", () => {
  const full = makeEngine();
  script(full);
  const all = full.takeEvents();
  const accountOnly = all.filter((ev) => ACCOUNT_KINDS.has(ev.type));
  /** A scaled listener's stream with its reports formatted back to the wire form. */
  const asWire = (events: readonly ScaledEngineEvent[]): EngineEvent[] => events.map((ev) => (ev.type === 'scaledExecutionReport' ? wireReport(ev) : ev));

  it('delivers the same events, executionReports in scaled form (formatted, the wire reports exactly)', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    const got: ScaledEngineEvent[] = [];
    e.subscribe((ev) => got.push(ev), { reports: 'scaled' });
    script(e);
    expect(got.filter((ev) => ev.type === 'scaledExecutionReport').length).toBe(all.filter((ev) => ev.type === 'executionReport').length);
    expect(got.some((ev) => (ev.type as string) === 'executionReport')).toBe(false);
    expect(JSON.stringify(asWire(got))).toBe(JSON.stringify(all));
  });

  it('combines with marketData and accountPositions false, next to a wire listener and the buffer', () => {
    const e = makeEngine();
    const scaled: ScaledEngineEvent[] = [];
    const wire: EngineEvent[] = [];
    e.subscribe((ev) => scaled.push(ev), { marketData: false, accountPositions: false, reports: 'scaled' });
    e.subscribe((ev) => wire.push(ev), { marketData: false });
    script(e);
    expect(JSON.stringify(e.takeEvents())).toBe(JSON.stringify(all));
    expect(JSON.stringify(wire)).toBe(JSON.stringify(accountOnly));
    expect(JSON.stringify(asWire(scaled))).toBe(JSON.stringify(all.filter((ev) => ev.type === 'executionReport' || ev.type === 'listStatus')));
  });

  it('transientReports: the same reports read during each call, in one reused object; a plain scaled listener beside it gets new ones', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    const copies: ScaledEngineEvent[] = [];
    const objects = new Set<ScaledEngineEvent>();
    e.subscribe(
      (ev) => {
        copies.push({ ...ev });
        if (ev.type === 'scaledExecutionReport') objects.add(ev);
      },
      { reports: 'scaled', transientReports: true },
    );
    script(e);
    expect(JSON.stringify(asWire(copies))).toBe(JSON.stringify(all));
    expect(objects.size).toBe(1);
    // Not every scaled listener says transient: no reuse (the other may keep its reports).
    const e2 = makeEngine({ config: { bufferEvents: false } });
    const kept: ScaledEngineEvent[] = [];
    const seen = new Set<ScaledEngineEvent>();
    e2.subscribe((ev) => ev.type === 'scaledExecutionReport' && seen.add(ev), { reports: 'scaled', transientReports: true });
    e2.subscribe((ev) => kept.push(ev), { reports: 'scaled' });
    script(e2);
    expect(JSON.stringify(asWire(kept))).toBe(JSON.stringify(all));
    expect(seen.size).toBe(kept.filter((ev) => ev.type === 'scaledExecutionReport').length);
  });

  it('transientReports: a report made while another is delivered is a new object, and the outer one is intact after it', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('99', '2')], asks: [lv('101', '1')] }, 1);
    const seen: { c: string; x: string; after?: string }[] = [];
    let nested = false;
    e.subscribe(
      (ev) => {
        if (ev.type !== 'scaledExecutionReport') return;
        const row: { c: string; x: string; after?: string } = { c: ev.c, x: ev.x };
        seen.push(row);
        if (!nested) {
          nested = true;
          // A listener calling back into the engine: its report is delivered inside this call.
          place(e, 'b', 'BUY', { price: '98', quantity: '1' }, 2);
        }
        row.after = `${ev.c}/${ev.x}`;
      },
      { reports: 'scaled', transientReports: true },
    );
    place(e, 'a', 'BUY', { price: '97', quantity: '1' }, 2);
    expect(seen.length).toBe(2);
    for (const r of seen) expect(r.after).toBe(`${r.c}/${r.x}`);
    expect(seen[0]?.c).not.toBe(seen[1]?.c);
  });

  it('transientReports: a keeping listener subscribed during a delivery of the reused report keeps what it got', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    e.applyDepthSnapshot('BTC_USDT', { bids: [lv('99', '2')], asks: [lv('101', '1')] }, 1);
    const kept: ScaledEngineEvent[] = [];
    let stop: (() => void) | undefined;
    e.subscribe(
      (ev) => {
        // Subscribed inside this delivery: the loop hands it the report being delivered.
        if (ev.type === 'scaledExecutionReport' && stop === undefined) stop = e.subscribe((k) => k.type === 'scaledExecutionReport' && kept.push(k), { reports: 'scaled' });
      },
      { reports: 'scaled', transientReports: true },
    );
    place(e, 'a', 'BUY', { price: '97', quantity: '1' }, 2);
    expect(kept.length).toBe(1);
    const before = JSON.stringify(kept[0]);
    // Once it leaves, every scaled listener is transient again and the engine reuses its object.
    stop?.();
    place(e, 'b', 'BUY', { price: '98', quantity: '2' }, 3);
    expect(JSON.stringify(kept[0])).toBe(before);
  });

  it('a fill report carries the scaled amounts and their scales', () => {
    const e = makeEngine({ config: { bufferEvents: false } });
    const got: ScaledEngineEvent[] = [];
    e.subscribe((ev) => got.push(ev), { reports: 'scaled' });
    script(e);
    const fill = got.find((ev) => ev.type === 'scaledExecutionReport' && ev.x === 'TRADE');
    expect(fill?.type).toBe('scaledExecutionReport');
    if (fill?.type !== 'scaledExecutionReport') return;
    const w = wireReport(fill);
    expect(Number(w.l)).toBe(fill.l / 10 ** fill.qtyScale);
    expect(Number(w.L)).toBe(fill.L / 10 ** fill.priceScale);
    expect(fill.feeScale).toBeGreaterThan(0);
    expect(fill.t).toBeGreaterThan(0);
  });
});
