/**
 * The base of a hidden per-object slot: a class whose constructor returns the object it is given,
 * so a subclass's private field lands on that object (the language's "return override"). The value
 * is then seen by no property operation (keys, symbols, spread, JSON, deep equality) and is read
 * only through the subclass (`#field in o ? o.#field : undefined`).
 *
 * Why not a non-enumerable symbol property: that takes an `Object.defineProperty` call, ~90 ns a
 * time, and a replay makes millions of lazy events; the private field is an ordinary store, one
 * hidden class per kind of event. Each kind declares its own subclass (not one made by a shared
 * factory), so each slot's accessors see one kind of object and stay monomorphic.
 */
export class ReturnOverride {
  constructor(o: object) {
    return o;
  }
}
