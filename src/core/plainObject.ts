/**
 * Constructors of plain objects: `new` on a function whose `prototype` is `Object.prototype` makes
 * an object a literal would (same prototype, keys, JSON, spread, deep equality), but through the
 * constructor path, which carries no V8 allocation site.
 *
 * Why: V8 pretenures a literal's allocation site when, at a collection, nearly all of its recent
 * objects are still alive, and then makes every later object of that site in the old generation,
 * for the rest of the process. A replay's per-event objects (items, lazy events, their state) live
 * only until the replay takes them, but the first collections of a run (code still cold, a read
 * batch in flight) can find most of them alive: the sites were tenured in about half the runs, and
 * those runs did four times as many full collections (measured in the commit that made these constructors).
 * Objects made by `new` are never pretenured.
 *
 * Each kind of object takes its own constructor (one hidden class each); pass a `function`
 * expression, not an arrow function (only a function can be called with `new`).
 */
export function plainConstructor<A extends unknown[], T extends object>(init: (this: T, ...args: A) => void): new (...args: A) => T {
  (init as unknown as { prototype: object }).prototype = Object.prototype;
  return init as unknown as new (...args: A) => T;
}
