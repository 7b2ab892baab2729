/**
 * The sandbox's exchange state: the matching engine, the market history built from its trades,
 * the configured symbols and accounts, and wallet records. Every engine call goes through
 * `exec`, which drains the engine's events after the call and hands them, in order, to the
 * listeners (streams, user data) so each operation's events leave as one batch.
 */
import { createHash } from 'node:crypto';
import { type Clock, type Decimal, DepositStatus, streamSymbol, marketSymbol, type SymbolTypeCode, WithdrawStatus } from '../core/index.js';
import { type EngineEvent, MatchingEngine, type TradeEvent } from '../sim/index.js';
import type { SandboxAccount, SandboxConfig, SandboxSymbol } from './config.js';
import { MarketData, type StoredAggTrade } from './market-data.js';

/** A batch of engine events from one operation, plus the aggregate trades it produced. */
export interface EventBatch {
  readonly events: readonly EngineEvent[];
  readonly aggTrades: readonly StoredAggTrade[];
}

/** A withdraw record as the open API reports it. */
export interface WithdrawRecord {
  readonly id: number;
  readonly clientId: string;
  readonly accountId: string;
  readonly asset: string;
  readonly network: string;
  readonly address: string;
  readonly addressTag: string;
  readonly amount: Decimal;
  readonly fee: Decimal;
  readonly txId: string;
  readonly status: number;
  readonly createTime: number;
}

/** A deposit record as the open API reports it. */
export interface DepositRecord {
  readonly id: number;
  readonly accountId: string;
  readonly asset: string;
  readonly network: string;
  readonly address: string;
  readonly addressTag: string;
  readonly txId: string;
  readonly amount: Decimal;
  readonly status: number;
  readonly insertTime: number;
}

/** Shared state of one running sandbox. */
export class ExchangeState {
  readonly engine: MatchingEngine;
  readonly market = new MarketData();
  readonly symbols = new Map<string, SandboxSymbol>();
  readonly accounts = new Map<string, SandboxAccount>();
  readonly withdraws: WithdrawRecord[] = [];
  readonly deposits: DepositRecord[] = [];
  readonly #listeners = new Set<(b: EventBatch) => void>();
  #nextWalletId = 1;

  constructor(
    readonly config: SandboxConfig,
    readonly clock: Clock,
  ) {
    for (const s of config.symbols) this.symbols.set(s.info.symbol, s);
    for (const a of config.accounts) this.accounts.set(a.id, a);
    this.engine = new MatchingEngine({
      symbols: config.symbols.map((s) => ({
        info: s.info,
        ...(s.priceRange ? { priceRange: s.priceRange } : {}),
        ...(s.referencePrice !== undefined ? { referencePrice: s.referencePrice } : {}),
        ...(s.lastPrice !== undefined ? { lastPrice: s.lastPrice } : {}),
      })),
      exchangeFilters: config.exchangeFilters,
      ...(config.firstOrderId !== undefined ? { firstOrderId: config.firstOrderId } : {}),
      accounts: config.accounts.map((a) => ({
        id: a.id,
        makerCommission: a.makerCommission,
        takerCommission: a.takerCommission,
        balances: a.balances,
        canTrade: a.canTrade,
        ...(a.tradeGroupId !== undefined ? { tradeGroupId: a.tradeGroupId } : {}),
      })),
    });
    // Initial balances appear as completed deposits so deposit history is not empty and matches the account.
    const now = clock.now();
    for (const a of config.accounts) {
      for (const [asset, amount] of Object.entries(a.balances)) {
        if (amount.isZero()) continue;
        this.deposits.push({
          id: this.#nextWalletId++,
          accountId: a.id,
          asset,
          network: asset,
          address: depositAddress(a.id, asset, asset),
          addressTag: '',
          txId: createHash('sha256').update(`${a.id}:${asset}:initial`).digest('hex'),
          amount,
          status: DepositStatus.SUCCESS,
          insertTime: now,
        });
      }
    }
  }

  /** Subscribes to event batches; returns the unsubscribe function. */
  onBatch(listener: (b: EventBatch) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Runs one engine operation at the current time and publishes its events. */
  exec<T>(fn: (engine: MatchingEngine, now: number) => T): T {
    const result = fn(this.engine, this.clock.now());
    this.flush();
    return result;
  }

  /** Publishes whatever the engine has buffered. */
  flush(): void {
    const events = this.engine.takeEvents();
    if (events.length === 0) return;
    const trades = events.filter((e): e is TradeEvent => e.type === 'trade');
    const aggTrades = trades.length > 0 ? this.market.record(trades) : [];
    const batch = { events, aggTrades };
    for (const l of this.#listeners) l(batch);
  }

  /** The symbol whose market-host spelling (type 1: no underscore) is `name` and whose type is in `types`. */
  symbolByMarketName(name: string, types: readonly SymbolTypeCode[]): SandboxSymbol | undefined {
    for (const s of this.symbols.values()) {
      if (types.includes(s.info.type) && marketSymbol(s.info.symbol, s.info.type) === name) return s;
    }
    return undefined;
  }

  /** The symbol whose stream spelling is `name` and whose type is in `types`. */
  symbolByStreamName(name: string, types: readonly SymbolTypeCode[]): SandboxSymbol | undefined {
    for (const s of this.symbols.values()) {
      if (types.includes(s.info.type) && streamSymbol(s.info.symbol, s.info.type) === name) return s;
    }
    return undefined;
  }

  /** Records a withdrawal after debiting the free balance; undefined with a reason when refused. */
  withdraw(accountId: string, w: { asset: string; network: string; address: string; addressTag: string; amount: Decimal; clientId: string }): WithdrawRecord | string {
    const now = this.clock.now();
    const res = this.exec((e, t) => e.adjustBalance(accountId, w.asset, w.amount.neg(), t));
    if (!res.ok) return res.message;
    // Sandbox withdrawals complete at once: there is no chain to wait for.
    const rec: WithdrawRecord = {
      id: this.#nextWalletId++,
      accountId,
      clientId: w.clientId,
      asset: w.asset,
      network: w.network,
      address: w.address,
      addressTag: w.addressTag,
      amount: w.amount,
      fee: w.amount.mul(0),
      txId: createHash('sha256').update(`withdraw:${this.#nextWalletId}:${now}`).digest('hex'),
      status: WithdrawStatus.COMPLETED,
      createTime: now,
    };
    this.withdraws.push(rec);
    return rec;
  }
}

/** A deterministic fake deposit address for an account, asset and network. */
export function depositAddress(accountId: string, asset: string, network: string): string {
  return `sbx${createHash('sha256').update(`${accountId}|${asset}|${network}`).digest('hex').slice(0, 37)}`;
}
