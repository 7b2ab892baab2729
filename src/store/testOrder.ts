/**
 * Test fixture shared by the ledger's unit tests: an order as the router journals it before its
 * request, a PENDING LIMIT GTC buy of 0.00012345 BTC_IDR at 950000000.5.
 */
import { Decimal, ZERO } from '../core/decimal.js';
import type { OrderRecord } from './records.js';

/** The fixture order under `clientId`. */
export const testOrder = (clientId: string): OrderRecord => ({
  clientId,
  strategy: 's1',
  intentId: `i-${clientId}`,
  symbol: 'BTC_IDR',
  side: 'BUY',
  orderType: 'LIMIT',
  timeInForce: 'GTC',
  price: new Decimal('950000000.5'),
  quantity: new Decimal('0.00012345'),
  quoteOrderQty: undefined,
  stopPrice: undefined,
  icebergQty: undefined,
  stpMode: undefined,
  venue: 'open',
  orderId: undefined,
  state: 'PENDING',
  cumQty: ZERO,
  cumQuoteQty: ZERO,
  createdAt: 1000,
  sentAt: undefined,
  updatedAt: 1000,
  reason: undefined,
});
