/** The account routes of the legacy interface: transaction, deposit and withdraw history, conversions (/v1/stp) and balances. */
import { LEGACY_STP_CURRENCIES, parseDecimal } from '../core/index.js';
import type { SandboxAccount } from './config.js';
import { fail, iso, num, ok, positiveNumber, uuidOf, type LegacyDeps, type LegacyRoute } from './legacy-kit.js';
import type { LegacyView } from './legacy-view.js';

/** GET /v1/history/transaction, /v1/history/deposit, /v1/history/withdraw, POST /v1/stp, GET /v1/account. */
export function legacyAccountRoutes(deps: LegacyDeps, view: LegacyView): LegacyRoute[] {
  const { state } = deps;
  const { symbolByCurrency } = view;
  return [
    {
      method: 'GET',
      path: '/v1/history/transaction',
      auth: true,
      handle: (_c, a) => {
        const acc = a as SandboxAccount;
        const list = [...state.symbols.values()].flatMap((s) =>
          state.engine.accountTrades(acc.id, s.info.symbol, { limit: 1000 }).map((t) => ({
            Id: uuidOf(`trade:${acc.id}:${s.info.symbol}:${t.tradeId}`),
            Side: t.isBuyer ? 'Buy' : 'Sell',
            Currency: s.info.baseAsset,
            Amount: num(t.qty),
            Status: 'Success',
            DateTime: iso(t.time),
            time: t.time,
          })),
        );
        list.sort((x, y) => x.time - y.time);
        return ok('get_transaction_success', list.map(({ time: _t, ...r }) => r));
      },
    },
    {
      method: 'GET',
      path: '/v1/history/deposit',
      auth: true,
      handle: (_c, a) =>
        ok(
          'get_deposit_success',
          state.deposits
            .filter((d) => d.accountId === (a as SandboxAccount).id)
            .map((d) => ({ Id: uuidOf(`deposit:${d.id}`), TxId: d.asset === 'IDR' ? null : d.txId, Currency: d.asset, Type: 'Deposit', Status: d.status === 1 ? 'Success' : 'Pending', Amount: num(d.amount), DateTime: iso(d.insertTime) })),
        ),
    },
    {
      method: 'GET',
      path: '/v1/history/withdraw',
      auth: true,
      handle: (_c, a) =>
        ok(
          'get_withdraw_success',
          state.withdraws
            .filter((w) => w.accountId === (a as SandboxAccount).id)
            .map((w) => ({
              Id: uuidOf(`withdraw:${w.id}`),
              Fee: num(w.fee),
              Type: 'Withdraw',
              Status: w.status === 10 ? 'Success' : 'Pending',
              Currency: w.asset,
              Amount: num(w.amount),
              TxId: w.txId === '' ? null : w.txId,
              // Fiat withdrawals carry bank details as a string holding JSON, as the spec says.
              BankDetails:
                w.asset === 'IDR'
                  ? JSON.stringify({ UpdatedAt: iso(w.createTime), UserId: w.accountId, City: 'Jakarta', AccountNumber: w.address, BankAccountId: w.id, BankName: w.network, BankAccountType: 'savings', Status: 'active', CreatedAt: iso(w.createTime) })
                  : null,
              DateTime: iso(w.createTime),
            })),
        ),
    },
    {
      method: 'POST',
      path: '/v1/stp',
      auth: true,
      handle: (_ctx, a, p) => {
        const acc = a as SandboxAccount;
        if (typeof p.currency !== 'string' || !(LEGACY_STP_CURRENCIES as readonly string[]).includes(p.currency)) fail(400, 'invalid_parameter', `currency must be one of ${LEGACY_STP_CURRENCIES.join(', ')}`);
        const s = symbolByCurrency(p.currency);
        if (!s) fail(400, 'invalid_parameter', `no ${p.currency.toUpperCase()}_IDR market in this sandbox`);
        const side = p.side === 'buy' ? 'BUY' : p.side === 'sell' ? 'SELL' : fail(400, 'invalid_parameter', 'side must be buy or sell');
        const amount = positiveNumber(p, 'amount');
        // A conversion is a market order: a buy spends `amount` rupiah as a quoteOrderQty buy (the quantity
        // whose cost is closest to it, so possibly a little more: open API rule 4), a sell sells `amount` crypto.
        const res = state.exec((e, now) =>
          e.placeOrder({ accountId: acc.id, symbol: s.info.symbol, side, type: 'MARKET', ...(side === 'BUY' ? { quoteOrderQty: parseDecimal('amount', amount) } : { quantity: parseDecimal('amount', amount) }) }, now),
        );
        if (!res.ok) fail(400, 'conversion_rejected', `${res.reason}: ${res.message}`);
        const o = res.order;
        const avg = o.executedQty.isZero() ? o.executedQty : o.executedQuoteQty.div(o.executedQty);
        return ok('create_conversion_success', { ConversionId: uuidOf(`conversion:${acc.id}:${o.orderId}`), DateTime: iso(o.createTime), Side: side === 'BUY' ? 'Buy' : 'Sell', Price: num(avg), Amount: num(o.executedQty), Currency: s.info.baseAsset });
      },
    },
    {
      method: 'GET',
      path: '/v1/account',
      auth: true,
      handle: (_c, a) =>
        ok('get_account_success', {
          Balance: state.engine.balances((a as SandboxAccount).id).map((b) => ({ Amount: num(b.free.plus(b.locked)), AvailableBalance: num(b.free), Status: 'active', Currency: b.asset })),
        }),
    },
  ];
}
