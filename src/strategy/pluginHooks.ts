/**
 * Module resolution hooks for strategy plugins outside the project, registered with node:module's
 * register as a data: URL (they run on the loader thread, as plain JavaScript, and need no file
 * of their own in the source or the compiled tree). A plugin in its own folder imports `kancil`
 * and kancil's own dependencies (zod, trading-signals...) without a node_modules of its own: a
 * bare specifier its folder cannot resolve is resolved again from kancil's package root, where
 * `kancil` is the package's own name (its `exports`). When kancil runs compiled (dist/), `kancil`
 * and `kancil/testing` are its compiled modules, for every plugin (the package's `exports` name the
 * TypeScript sources, which plain Node cannot load), so plugins share the runner's one copy.
 */
const HOOKS = `
let root;
let compiled;
export function initialize(data) { root = data.root; compiled = data.compiled; }
export async function resolve(specifier, context, next) {
  if (compiled !== undefined && Object.hasOwn(compiled, specifier)) return { url: compiled[specifier], shortCircuit: true };
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
