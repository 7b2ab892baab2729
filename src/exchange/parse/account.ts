/** Account parsing: account information, balances and the account's own trades. */
import { parseDecimal, parseOptionalDecimal, parseTradeId, type AccountInfo, type AccountTrade, type Balance } from '../../core/index.js';
import { asArray, asObject, flag, id, int, listOf, optFlag, optId, str } from './fields.js';

/** Parses one `{asset, free, locked}` balance. */
export function parseBalance(v: unknown, where = 'balance'): Balance {
  const o = asObject(where, v);
  return { asset: str(o, 'asset', where, false), free: parseDecimal(`${where}.free`, o.free), locked: parseDecimal(`${where}.locked`, o.locked) };
}

/** Parses account information. */
export function parseAccountInfo(v: unknown, where = 'account'): AccountInfo {
  const o = asObject(where, v);
  return {
    makerCommission: parseDecimal(`${where}.makerCommission`, o.makerCommission),
    takerCommission: parseDecimal(`${where}.takerCommission`, o.takerCommission),
    buyerCommission: parseDecimal(`${where}.buyerCommission`, o.buyerCommission),
    sellerCommission: parseDecimal(`${where}.sellerCommission`, o.sellerCommission),
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
  const taxAmount = parseOptionalDecimal(`${where}.taxAmount`, o.taxAmount);
  const taxRate = parseOptionalDecimal(`${where}.taxRate`, o.taxRate);
  return {
    tradeId: parseTradeId(`${where}.tradeId`, o.tradeId),
    orderId: id(o, 'orderId', where),
    symbol: str(o, 'symbol', where, false),
    price: parseDecimal(`${where}.price`, o.price),
    qty: parseDecimal(`${where}.qty`, o.qty),
    quoteQty: parseDecimal(`${where}.quoteQty`, o.quoteQty),
    commission: parseDecimal(`${where}.commission`, o.commission),
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
