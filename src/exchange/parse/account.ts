/** Account parsing: account information, balances and the account's own trades. */
import { parseTradeId, type AccountInfo, type AccountTrade, type Balance } from '../../core/index.js';
import { amountValue, asArray, asObject, flag, id, int, listOf, optAmount, optFlag, optId, str } from './fields.js';

/** Parses one `{asset, free, locked}` balance. */
export function parseBalance(v: unknown, where = 'balance'): Balance {
  const o = asObject(where, v);
  return { asset: str(o, 'asset', where, false), free: amountValue(`${where}.free`, o.free), locked: amountValue(`${where}.locked`, o.locked) };
}

/** Parses account information. */
export function parseAccountInfo(v: unknown, where = 'account'): AccountInfo {
  const o = asObject(where, v);
  return {
    makerCommission: amountValue(`${where}.makerCommission`, o.makerCommission),
    takerCommission: amountValue(`${where}.takerCommission`, o.takerCommission),
    buyerCommission: amountValue(`${where}.buyerCommission`, o.buyerCommission),
    sellerCommission: amountValue(`${where}.sellerCommission`, o.sellerCommission),
    canTrade: flag(o, 'canTrade', where),
    canWithdraw: flag(o, 'canWithdraw', where),
    canDeposit: flag(o, 'canDeposit', where),
    balances: asArray(`${where}.accountAssets`, o.accountAssets).map((b, i) => parseBalance(b, `${where}.accountAssets[${i}]`)),
  };
}

/** Parses one account trade. */
export function parseAccountTrade(v: unknown, where = 'accountTrade'): AccountTrade {
  const o = asObject(where, v);
  const matchId = optId(o, 'matchId', where);
  const taxAmount = optAmount(o, 'taxAmount', where);
  const taxRate = optAmount(o, 'taxRate', where);
  return {
    tradeId: parseTradeId(`${where}.tradeId`, o.tradeId),
    orderId: id(o, 'orderId', where),
    symbol: str(o, 'symbol', where, false),
    price: amountValue(`${where}.price`, o.price),
    qty: amountValue(`${where}.qty`, o.qty),
    quoteQty: amountValue(`${where}.quoteQty`, o.quoteQty),
    commission: amountValue(`${where}.commission`, o.commission),
    commissionAsset: str(o, 'commissionAsset', where),
    ...(matchId !== undefined ? { matchId } : {}),
    isBuyer: flag(o, 'isBuyer', where),
    isMaker: flag(o, 'isMaker', where),
    isBestMatch: optFlag(o, 'isBestMatch', where) ?? false,
    ...(taxAmount !== undefined ? { taxAmount } : {}),
    ...(taxRate !== undefined ? { taxRate } : {}),
    time: int(o, 'time', where),
  };
}

/** Parses an account trades payload (`data.list`). */
export function parseAccountTrades(data: unknown): AccountTrade[] {
  return listOf('accountTrades', data).map((t, i) => parseAccountTrade(t, `accountTrades[${i}]`));
}
