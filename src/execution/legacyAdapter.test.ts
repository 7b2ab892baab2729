import { describe, expect, it } from 'vitest';
import { Decimal } from '../core/decimal.js';
import { ParseError } from '../core/errors.js';
import type { LegacyOrder } from '../exchange/parse/legacy.js';
import { legacyPort, type LegacyOrderClient } from './legacyAdapter.js';

const order = (p: Partial<LegacyOrder>): LegacyOrder => ({
  orderId: 7,
  type: 'limit',
  side: 'sell',
  currencyPair: 'BTCIDR',
  quantity: new Decimal('0.5'),
  availableQuantity: new Decimal('0.5'),
  postOnly: false,
  price: new Decimal('900000000'),
  status: 'active',
  time: 1,
  ...p,
});

function portOver(orders: LegacyOrder[]) {
  const client = { activeOrders: () => Promise.resolve(orders), getOrder: () => Promise.resolve(orders[0] as LegacyOrder) } as unknown as LegacyOrderClient;
  return legacyPort(client);
}

describe('legacyPort', () => {
  it('maps /v1 orders to BASE_QUOTE symbols and upper-case sides and types', async () => {
    const [v] = await portOver([order({ side: 'Buy', type: 'MARKET' })]).activeOrders();
    expect(v).toMatchObject({ orderId: '7', symbol: 'BTC_IDR', side: 'BUY', type: 'MARKET' });
  });

  it('refuses a side or type it cannot read instead of guessing one (an unknown side read as BUY would match the wrong order)', async () => {
    await expect(portOver([order({ side: 'ask' })]).activeOrders()).rejects.toThrow(ParseError);
    await expect(portOver([order({ side: 'ask' })]).activeOrders()).rejects.toThrow(/side.*ask/);
    await expect(portOver([order({ type: 'stop' })]).getOrder('7')).rejects.toThrow(/type.*stop/);
  });
});
