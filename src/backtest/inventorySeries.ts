/**
 * A position over time, kept bounded whatever the number of fills: the position after every k-th
 * fill, k doubling (and every other point dropped) each time the list fills up, so a run of a
 * million fills keeps as many points as one of a thousand, spread over the whole run. The last
 * position is always added at the end. Floats, drawn in the report: they decide no order.
 */

/** Most points a series keeps (between half of it and all of it once full). */
export const INVENTORY_POINTS = 200;

/** One point: time (ms) and the position then (base asset). */
export interface InventoryPoint {
  readonly t: number;
  readonly q: number;
}

/** The series of one strategy and symbol, fed each fill's resulting position in order. */
export class InventorySeries {
  readonly #points: InventoryPoint[] = [];
  #stride = 1;
  #n = 0;
  #last: InventoryPoint | undefined;

  /** The position after a fill at `t`. */
  add(t: number, q: number): void {
    this.#last = { t, q };
    if (this.#n++ % this.#stride !== 0) return;
    this.#points.push(this.#last);
    if (this.#points.length >= INVENTORY_POINTS) {
      let k = 0;
      for (let i = 0; i < this.#points.length; i += 2) this.#points[k++] = this.#points[i] as InventoryPoint;
      this.#points.length = k;
      this.#stride *= 2;
    }
  }

  /** The points kept, then the last fill's if not among them, then the position held at `end`. */
  points(end: number): InventoryPoint[] {
    const out = [...this.#points];
    const last = this.#last;
    if (last !== undefined && out[out.length - 1] !== last) out.push(last);
    if (last !== undefined && end > last.t) out.push({ t: end, q: last.q });
    return out;
  }
}
