/**
 * Pure rules of the order state machine. Reports can arrive duplicated and out of order (the spec
 * warns user data may be reordered; REST answers race the stream), so a state only moves forward
 * and cumulative quantities only grow.
 */
import type { OrderStatusName } from '../core/enums.js';
import { isTerminalState, type TrackedOrderStateName } from '../bus/events.js';

/** Progress rank: a report may only move an order to a state of strictly higher rank (or stay partially filled). */
const RANK: Readonly<Record<TrackedOrderStateName, number>> = {
  PENDING: 0,
  UNKNOWN: 0,
  NEW: 1,
  PARTIALLY_FILLED: 2,
  FILLED: 3,
  CANCELED: 3,
  REJECTED: 3,
  EXPIRED: 3,
};

/** True for states after which nothing changes (the one definition lives beside the state names). */
export const isTerminal: (s: TrackedOrderStateName) => boolean = isTerminalState;

/**
 * Exchange order status to tracked state. SYSTEM_PROCESSING means the exchange has the order
 * (it is not unknown any more), and PENDING_CANCEL is still live, so both count as NEW.
 */
export function stateOfStatus(status: OrderStatusName): TrackedOrderStateName {
  switch (status) {
    case 'SYSTEM_PROCESSING':
    case 'NEW':
    case 'PENDING_CANCEL':
      return 'NEW';
    case 'PARTIALLY_FILLED':
      return 'PARTIALLY_FILLED';
    case 'FILLED':
      return 'FILLED';
    case 'CANCELED':
      return 'CANCELED';
    case 'REJECTED':
      return 'REJECTED';
    case 'EXPIRED':
      return 'EXPIRED';
    default: {
      const never: never = status;
      throw new Error(`unhandled order status ${String(never)}`);
    }
  }
}

/**
 * The state after a report saying `reported`, given the current state. Terminal states are final;
 * stale reports (lower rank) are ignored.
 */
export function nextState(current: TrackedOrderStateName, reported: TrackedOrderStateName): TrackedOrderStateName {
  if (isTerminal(current)) return current;
  return RANK[reported] > RANK[current] ? reported : current;
}
