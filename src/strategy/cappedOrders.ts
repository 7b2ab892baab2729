/**
 * A strategy's own resting orders, oldest first, held to a maximum: the example plugins that place
 * an order per signal (periodic-orders, trade-fader) bound what they leave on the book this way.
 */
import { isTerminalState, type BusEvent } from '../bus/events.js';
import type { StrategyContext } from './types.js';

/** Own orders on one symbol in placement order; adding one beyond `max` cancels the oldest. */
export class CappedOrders {
  readonly #ids: string[] = [];

  constructor(
    private readonly ctx: Pick<StrategyContext<unknown>, 'cancel'>,
    private readonly symbol: string,
    private readonly max: number,
  ) {}

  /**
   * Forgets an order whose terminal update `e` is. True for any terminal order update (ours or
   * not), so a plugin can `return` on it: there is nothing else to do with such an event.
   */
  settle(e: BusEvent): boolean {
    if (e.type !== 'orderUpdate' || !isTerminalState(e.state)) return false;
    const i = this.#ids.indexOf(e.clientId);
    if (i >= 0) this.#ids.splice(i, 1);
    return true;
  }

  /** Records a newly placed order; beyond the maximum the oldest is cancelled (and forgotten now). */
  add(clientId: string): void {
    this.#ids.push(clientId);
    if (this.#ids.length > this.max) this.ctx.cancel(this.symbol, this.#ids.shift() as string);
  }

  /** How many are held. */
  get size(): number {
    return this.#ids.length;
  }
}
