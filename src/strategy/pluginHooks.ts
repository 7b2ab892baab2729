/**
 * Module resolution hooks for strategy plugins outside the project, registered with node:module's
 * register as a data: URL (they run on the loader thread, as plain JavaScript, and need no file
 * of their own in the source or the compiled tree). A plugin in its own folder imports `kancil`
 * and kancil's own dependencies (zod, trading-signals...) without a node_modules of its own: a
 * bare specifier its folder cannot resolve is resolved again from kancil's package root, where
 * `kancil` is the package's own name (its `exports`). `kancil`, `kancil/testing` and
 * `kancil/indicators` are given as the modules the running CLI is made of (`own`: compiled or
 * TypeScript), so plugins share the runner's one copy of every class.
 */
const HOOKS = `
let root;
let own;
export function initialize(data) { root = data.root; own = data.own; }
export async function resolve(specifier, context, next) {
  // Through the next hooks (tsx, when the CLI runs from its sources, must see a .ts URL resolved).
  if (own !== undefined && Object.hasOwn(own, specifier)) return next(own[specifier], context);
  try {
    return await next(specifier, context);
  } catch (err) {
    const bare = !specifier.startsWith('.') && !specifier.startsWith('/') && !/^[a-z]+:/i.test(specifier);
    if (!bare || root === undefined || context.parentURL === root) throw err;
    return next(specifier, { ...context, parentURL: root });
  }
}
`;

/** The hooks module as a URL for `register`. */
export const PLUGIN_HOOKS_URL = `data:text/javascript,${encodeURIComponent(HOOKS)}`;
