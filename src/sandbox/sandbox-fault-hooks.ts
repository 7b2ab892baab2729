/**
 * The fault hooks the order routes call around a placement or a cancel: an armed fault
 * (faults.ts) becomes the injected 5XX, a dropped connection, or the rejection of an accepted order.
 */
import { ExchangeError } from '../core/index.js';
import type { ExchangeState } from './exchange-state.js';
import type { FaultController } from './faults.js';
import { DropConnection } from './http-host.js';
import { ApiCode } from './params.js';

/** Which interface a hook serves: its 5XX body differs. */
export type FaultScope = 'open' | 'legacy';

/** The hooks, bound to one sandbox's faults and state. */
export interface FaultHooks {
  orderFault(when: 'before' | 'after', path: string, scope: FaultScope): void;
  cancelFault(when: 'before' | 'after', path: string, scope: FaultScope): void;
  rejectFault(accountId: string, orderId: string): void;
}

/** The fault hooks of one sandbox. */
export function faultHooks(faults: FaultController, state: ExchangeState): FaultHooks {
  const injected5xx = (status: number, path: string, scope: FaultScope): ExchangeError =>
    new ExchangeError(status, scope === 'open' ? ApiCode.UNKNOWN : 'internal_error', 'Internal error; unable to process your request. Please try again.', path);
  return {
    orderFault: (when, path, scope) => {
      const status = faults.orderFailure(scope, when);
      if (status !== undefined) throw injected5xx(status, path, scope);
    },
    cancelFault: (when, path, scope) => {
      const action = faults.cancelFailure(scope, when);
      if (action === undefined) return;
      throw action.kind === 'drop' ? new DropConnection() : injected5xx(action.status, path, scope);
    },
    rejectFault: (accountId, orderId) => {
      const reason = faults.takeRejection();
      if (reason !== undefined) state.exec((e, now) => e.rejectAccepted({ accountId, orderId }, reason, now));
    },
  };
}
