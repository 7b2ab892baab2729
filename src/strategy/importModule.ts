/**
 * `import()` of a module that is not kancil's own code (a plugin file, tsx's loader). Its own
 * module because the build's one-script bundle (bin/bundle-dist.mjs), a script and not a
 * module, cannot call `import()` itself: there this module is replaced by the runtime's.
 */
export function importModule(specifier: string): Promise<unknown> {
  return import(specifier);
}
