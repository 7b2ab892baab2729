/** Wire samples of the open API, shaped as the spec describes (strings and numbers mixed on purpose). */

/** Wraps a payload in the open envelope. */
export function ok(data: unknown, msgField: 'msg' | 'message' = 'msg'): Record<string, unknown> {
  return { code: 0, [msgField]: 'Success', data, timestamp: 1_700_000_000_123 };
}

/** A type 1 symbol with every filter. */
export const wireSymbol = {
  type: 1,
  symbol: 'BTC_IDR',
  baseAsset: 'BTC',
  quoteAsset: 'IDR',
  basePrecision: 8,
  quotePrecision: 2,
  filters: [
    { filterType: 'PRICE_FILTER', minPrice: '1.00', maxPrice: '30028768800.00', tickSize: '1.00', applyToMarket: false },
    { filterType: 'LOT_SIZE', minQty: '0.00001000', maxQty: '3.00000000', stepSize: '0.00001000', applyToMarket: false },
    { filterType: 'NOTIONAL', minNotional: '20000.00', maxNotional: '9000000000.00', applyToMarket: true, avgPriceMins: '5' },
    { filterType: 'MAX_NUM_ORDERS', limit: 200, applyToMarket: false },
  ],
  orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
  defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
  allowedSelfTradePreventionModes: ['EXPIRE_MAKER', 'EXPIRE_TAKER', 'EXPIRE_BOTH', 'DECREMENT'],
  icebergEnable: 1,
  ocoEnable: 1,
  spotTradingEnable: 1,
  marginTradingEnable: 0,
};

/** An order as the new-order response carries it (numbers, borderId spelling). */
export const wireNewOrder = {
  orderId: 912_345,
  borderId: '7f0c',
  borderListId: -1,
  clientId: 'abc123',
  symbol: 'BTC_IDR',
  symbolType: 1,
  side: 0,
  type: 1,
  price: 1_000_000_000,
  origQty: '0.00100000',
  origQuoteQty: '1000000.00',
  executedQty: '0',
  executedPrice: '0',
  executedQuoteQty: '0',
  timeInForce: 1,
  stopPrice: 0,
  icebergQty: '0',
  status: 0,
  isWorking: 1,
  createTime: 1_700_000_000_000,
};

/** The same order as query-order returns it (strings, bOrderId, tax fields). */
export const wireOrderDetail = {
  ...wireNewOrder,
  orderId: '912345',
  borderId: undefined,
  borderListId: undefined,
  bOrderId: '7f0c',
  bOrderListId: '-1',
  price: '1000000000.00',
  status: 2,
  executedQty: '0.00100000',
  executedPrice: '999999999.00',
  executedQuoteQty: '999999.99',
  taxFee: '0.12',
  taxFeeAsset: 'IDR',
};

/** An OCO order list. */
export const wireOco = {
  bOrderListId: '88',
  listClientId: 'list-1',
  symbol: 'BTC_IDR',
  symbolType: 1,
  contingencyType: 'OCO',
  listStatusType: 'EXEC_STARTED',
  listOrderStatus: 'EXECUTING',
  createTime: 1_700_000_000_000,
  orders: [
    { ...wireNewOrder, orderId: '1', type: 4, price: '900000000', stopPrice: '950000000', side: 1 },
    { ...wireNewOrder, orderId: '2', type: 7, price: '1100000000', side: 1 },
  ],
};

/** Account information. */
export const wireAccount = {
  makerCommission: '0.0010',
  takerCommission: '0.0020',
  buyerCommission: '0',
  sellerCommission: '0',
  canTrade: 1,
  canWithdraw: 1,
  canDeposit: 0,
  accountAssets: [
    { asset: 'BTC', free: '0.12345678', locked: '0.00000001' },
    { asset: 'IDR', free: '1000000.10', locked: '0' },
  ],
};

/** An account trade. */
export const wireAccountTrade = {
  tradeId: '77',
  orderId: '912345',
  symbol: 'BTC_IDR',
  price: '999999999.00',
  qty: '0.00100000',
  matchId: '5',
  quoteQty: '999999.99',
  commission: '1999.99',
  commissionAsset: 'IDR',
  isBuyer: 1,
  isMaker: 0,
  isBestMatch: 1,
  taxAmount: '0.1',
  taxRate: '0.0001',
  time: '1700000000001',
};

/** A kline array. */
export const wireKline = [1_787_817_600_000, '521.00', '537.00', '521.00', '537.00', '1188.29000000', 1_787_821_199_999, '632572.93', 9, '1027.29000000', '548331.93', '0'];
