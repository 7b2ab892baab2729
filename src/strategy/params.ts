/** Validation of a plugin's parameters with its own zod schema, issues named by path and value. */
import type { StrategyPlugin } from './types.js';

/** One problem with a parameter: its path below `params`, the value found and the rule broken. */
export interface ParamIssue {
  readonly path: readonly PropertyKey[];
  readonly value: unknown;
  readonly message: string;
}

/** Validated parameters, or the first issues. */
export type ParamsResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly ParamIssue[] };

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p as string];
  }
  return v;
}

/** Runs the plugin's schema over raw parameters from YAML. */
export function validateParams(plugin: StrategyPlugin, raw: unknown): ParamsResult {
  const r = plugin.params.safeParse(raw ?? {});
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    issues: r.error.issues.map((i) => {
      // An unknown key is named itself, not its parent object.
      const key = i.code === 'unrecognized_keys' ? i.keys[0] : undefined;
      const path = key !== undefined ? [...i.path, key] : i.path;
      return { path, value: valueAt(raw, path), message: key !== undefined ? `unknown parameter "${key}"` : i.message };
    }),
  };
}
