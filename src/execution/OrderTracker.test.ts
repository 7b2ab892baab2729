import { describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../core/clock.js';
import { Decimal, ZERO } from '../core/decimal.js';
import type { ExecutionReportEvent } from '../core/marketEvents.js';
import type { Order } from '../core/types.js';
import { Ledger } from '../store/Ledger.js';
import { OrderTracker, type TrackerEvent } from './OrderTracker.js';

/** A PENDING limit buy as the router journals it. */
function newOrder(clientId: string, intentId: string) {
  return {
    clientId,
    strategy: 's1',
    intentId,
    symbol: 'BTC_IDR',
    side: 'BUY',
    orderType: 'LIMIT',
    timeInForce: 'GTC',
    price: new Decimal('1000'),
    quantity: new Decimal('0.3'),
    quoteOrderQty: undefined,
    stopPrice: undefined,
    icebergQty: undefined,
    stpMode: undefined,
    venue: 'open',
  } as const;
}

function setup() {
  const ledger = Ledger.open(':memory:');
  const clock = new VirtualClock(1000);
  const events: TrackerEvent[] = [];
  const tracker = new OrderTracker({ ledger, clock, emit: (e) => events.push(e) });
  tracker.create(newOrder('c1', 'i1'));
  return { ledger, clock, events, tracker };
}

function report(p: Partial<ExecutionReportEvent>): ExecutionReportEvent {
  return {
    type: 'executionReport',
    E: 1,
    symbol: 'BTC_IDR',
    clientId: 'c1',
    side: 'BUY',
    orderType: 'LIMIT',
    timeInForce: 'GTC',
    quantity: new Decimal('0.3'),
    price: new Decimal('1000'),
    stopPrice: ZERO,
    icebergQty: ZERO,
    origClientId: '',
    executionType: 'NEW',
    status: 'NEW',
    rejectReason: 'NONE',
    orderId: '77',
    lastQty: ZERO,
    cumQty: ZERO,
    lastPrice: ZERO,
    commission: ZERO,
    commissionAsset: null,
    transactionTime: 5,
    tradeId: undefined,
    isWorking: true,
    isMaker: false,
    orderCreationTime: 1,
    cumQuoteQty: ZERO,
    lastQuoteQty: ZERO,
    expiryReason: undefined,
    ...p,
  };
}

const trade = (tradeId: number, last: string, cum: string, status: 'PARTIALLY_FILLED' | 'FILLED') =>
  report({
    executionType: 'TRADE',
    status,
    tradeId: String(tradeId),
    lastQty: new Decimal(last),
    lastPrice: new Decimal('1000'),
    lastQuoteQty: new Decimal(last).mul(1000),
    cumQty: new Decimal(cum),
    cumQuoteQty: new Decimal(cum).mul(1000),
    commission: new Decimal('0.0000001'),
    commissionAsset: 'BTC',
    isMaker: true,
  });

describe('OrderTracker', () => {
  it('journals PENDING before anything is sent and walks NEW -> PARTIALLY_FILLED -> FILLED with exact fills', () => {
    const { ledger, tracker, events } = setup();
    expect(ledger.order('c1')?.state).toBe('PENDING');
    tracker.applyExecutionReport(report({}));
    tracker.applyExecutionReport(trade(1, '0.1', '0.1', 'PARTIALLY_FILLED'));
    tracker.applyExecutionReport(trade(2, '0.2', '0.3', 'FILLED'));
    expect(ledger.order('c1')?.state).toBe('FILLED');
    expect(ledger.order('c1')?.orderId).toBe('77');
    expect(ledger.transitions('c1').map((t) => t.to)).toEqual(['PENDING', 'NEW', 'PARTIALLY_FILLED', 'FILLED']);
    const fills = ledger.fills('c1');
    expect(fills.reduce((a, f) => a.plus(f.qty), ZERO).toFixed()).toBe('0.3');
    expect(fills.reduce((a, f) => a.plus(f.commission), ZERO).toFixed()).toBe('0.0000002');
    expect(events.filter((e) => e.type === 'fill')).toHaveLength(2);
    expect(tracker.liveOrders()).toHaveLength(0);
  });

  it('events after an order ended are answered from memory, as the ledger would, and still journalled', () => {
    const { ledger, tracker } = setup();
    tracker.applyExecutionReport(report({}));
    tracker.applyExecutionReport(report({ executionType: 'CANCELED', status: 'CANCELED', isWorking: false }));
    const reads = vi.spyOn(ledger, 'order');
    // A fill the exchange reports after the cancel (it raced it) still counts.
    tracker.applyExecutionReport({ ...trade(1, '0.1', '0.1', 'PARTIALLY_FILLED'), status: 'CANCELED', isWorking: false });
    tracker.applyExecutionReport(report({ executionType: 'CANCELED', status: 'CANCELED', isWorking: false }));
    expect(tracker.get('c1')?.cumQty.toFixed()).toBe('0.1');
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    expect(tracker.get('c1')).toEqual(ledger.order('c1'));
    expect(ledger.order('c1')?.cumQty.toFixed()).toBe('0.1');
  });

  it('keeps only live and lately ended orders in memory: an old order is found by orderId through the ledger', () => {
    const { ledger, tracker } = setup();
    const ended = 200; // more than the tracker keeps ended in memory (128)
    for (let i = 0; i < ended; i++) {
      const clientId = `e${i}`;
      tracker.create(newOrder(clientId, `ie${i}`));
      tracker.applyExecutionReport(report({ clientId, orderId: `o${i}` }));
      tracker.applyExecutionReport(report({ clientId, orderId: `o${i}`, executionType: 'CANCELED', status: 'CANCELED', isWorking: false }));
    }
    const reads = vi.spyOn(ledger, 'orderByOrderId');
    expect(tracker.byOrderId(`o${ended - 1}`)?.clientId).toBe(`e${ended - 1}`);
    expect(reads).not.toHaveBeenCalled();
    // The first ended order left memory with its orderId key, and is still found, in the ledger.
    expect(tracker.byOrderId('o0')?.clientId).toBe('e0');
    expect(tracker.byOrderId('o0')?.state).toBe('CANCELED');
    expect(reads).toHaveBeenCalledWith('o0');
    reads.mockRestore();
  });

  it('ignores duplicated and out-of-order reports: states never go back, quantities never shrink', () => {
    const { ledger, tracker, events } = setup();
    tracker.applyExecutionReport(trade(2, '0.2', '0.3', 'FILLED'));
    tracker.applyExecutionReport(trade(1, '0.1', '0.1', 'PARTIALLY_FILLED'));
    tracker.applyExecutionReport(report({}));
    tracker.applyExecutionReport(trade(2, '0.2', '0.3', 'FILLED'));
    const o = ledger.order('c1');
    expect(o?.state).toBe('FILLED');
    expect(o?.cumQty.toFixed()).toBe('0.3');
    // Both fills count once each, whichever order they came in.
    expect(ledger.fills('c1').map((f) => f.tradeId).sort()).toEqual(['1', '2']);
    expect(events.filter((e) => e.type === 'fill')).toHaveLength(2);
  });

  it('counts a fill once when both the stream and REST reconciliation report it', () => {
    const { ledger, tracker } = setup();
    tracker.applyExecutionReport(trade(1, '0.1', '0.1', 'PARTIALLY_FILLED'));
    tracker.applyTrade({
      tradeId: '1',
      orderId: '77',
      symbol: 'BTC_IDR',
      price: new Decimal('1000'),
      qty: new Decimal('0.1'),
      quoteQty: new Decimal('100'),
      commission: new Decimal('0.0000001'),
      commissionAsset: 'BTC',
      isBuyer: true,
      isMaker: true,
      isBestMatch: true,
      time: 5,
    });
    expect(ledger.fills('c1')).toHaveLength(1);
  });

  it('UNKNOWN is resolved by a later snapshot, and terminal states are final', () => {
    const { ledger, tracker } = setup();
    tracker.markUnknown('c1', 'HTTP 502');
    expect(ledger.order('c1')?.state).toBe('UNKNOWN');
    const snap: Order = {
      orderId: '77',
      clientId: 'c1',
      symbol: 'BTC_IDR',
      side: 'BUY',
      type: 'LIMIT',
      status: 'CANCELED',
      price: new Decimal('1000'),
      origQty: new Decimal('0.3'),
      origQuoteQty: ZERO,
      executedQty: ZERO,
      executedPrice: ZERO,
      executedQuoteQty: ZERO,
      stopPrice: ZERO,
      icebergQty: ZERO,
      createTime: 1,
    };
    tracker.applyOrder(snap, 'reconcile');
    tracker.applyOrder({ ...snap, status: 'NEW' }, 'rest');
    expect(ledger.order('c1')?.state).toBe('CANCELED');
    expect(ledger.transitions('c1').map((t) => t.to)).toEqual(['PENDING', 'UNKNOWN', 'CANCELED']);
  });

  it('holds reports for an unattributed orderId until the legacy ack names it', () => {
    const { ledger, tracker } = setup();
    tracker.applyExecutionReport({ ...trade(1, '0.1', '0.1', 'PARTIALLY_FILLED'), clientId: 'srv-generated' });
    expect(ledger.fills()).toHaveLength(0);
    tracker.attachOrderId('c1', '77', 'legacy');
    expect(ledger.fills('c1')).toHaveLength(1);
    expect(ledger.order('c1')?.state).toBe('PARTIALLY_FILLED');
  });

  it('reloads live orders from the ledger after a restart', () => {
    const { ledger, clock } = setup();
    const t2 = new OrderTracker({ ledger, clock, emit: () => undefined });
    expect(t2.load().map((o) => o.clientId)).toEqual(['c1']);
    expect(t2.liveOrders({ strategy: 's1' })).toHaveLength(1);
    expect(t2.liveOrders({ strategy: 'other' })).toHaveLength(0);
  });
});
