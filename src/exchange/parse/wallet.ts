/** Wallet parsing: withdraw and deposit records, deposit address, withdraw acknowledgement. */
import { DepositStatus, WithdrawStatus, ZERO } from '../../core/index.js';
import { amount, asObject, enumName, id, int, listOf, optAmount, optStr, str } from './fields.js';
import type { DepositAddress, DepositRecord, WithdrawRecord } from './records.js';

/** Parses one withdraw record. */
export function parseWithdrawRecord(v: unknown, where = 'withdraw'): WithdrawRecord {
  const o = asObject(where, v);
  return {
    id: id(o, 'id', where),
    clientId: optStr(o, 'clientId', where) ?? '',
    asset: str(o, 'asset', where, false),
    network: optStr(o, 'network', where) ?? '',
    address: str(o, 'address', where),
    amount: amount(o, 'amount', where),
    fee: optAmount(o, 'fee', where) ?? ZERO,
    txId: optStr(o, 'txId', where) ?? '',
    status: enumName(WithdrawStatus, `${where}.status`, o.status),
    createTime: int(o, 'createTime', where),
  };
}

/** Parses a withdraw history payload (`data.list`). */
export function parseWithdrawRecords(data: unknown): WithdrawRecord[] {
  return listOf('withdraws', data).map((w, i) => parseWithdrawRecord(w, `withdraws[${i}]`));
}

/** Parses one deposit record. */
export function parseDepositRecord(v: unknown, where = 'deposit'): DepositRecord {
  const o = asObject(where, v);
  return {
    id: id(o, 'id', where),
    asset: str(o, 'asset', where, false),
    network: optStr(o, 'network', where) ?? '',
    address: optStr(o, 'address', where) ?? '',
    addressTag: optStr(o, 'addressTag', where) ?? '',
    txId: optStr(o, 'txId', where) ?? '',
    amount: amount(o, 'amount', where),
    status: enumName(DepositStatus, `${where}.status`, o.status),
    insertTime: int(o, 'insertTime', where),
  };
}

/** Parses a deposit history payload (`data.list`). */
export function parseDepositRecords(data: unknown): DepositRecord[] {
  return listOf('deposits', data).map((d, i) => parseDepositRecord(d, `deposits[${i}]`));
}

/** Parses a deposit address. */
export function parseDepositAddress(v: unknown, where = 'depositAddress'): DepositAddress {
  const o = asObject(where, v);
  return { address: str(o, 'address', where, false), addressTag: optStr(o, 'addressTag', where) ?? '', asset: str(o, 'asset', where, false) };
}

/** Reads `data.withdrawId` (a string per the spec; an integer is accepted). */
export function parseWithdrawId(v: unknown, where = 'withdraw'): string {
  return id(asObject(where, v), 'withdrawId', where);
}
