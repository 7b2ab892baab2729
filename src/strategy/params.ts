/** Validation of a plugin's parameters with its own zod schema, issues named by path and value. */
import { z } from 'zod';
import { issuePlace, valueAtPath } from '../core/configIssue.js';
import type { StrategyPlugin } from './types.js';

/**
 * A parameter that is a plain non-negative decimal written as a string ("0.001"): kept as text by
 * the schema, made a Decimal by the plugin, so no YAML float ever rounds a price or a quantity.
 */
export const decimalParam = z.string().regex(/^\d+(\.\d+)?$/, 'expected a plain non-negative decimal string such as "0.001"');

/** One problem with a parameter: its path below `params`, the value found and the rule broken. */
export interface ParamIssue {
  readonly path: readonly PropertyKey[];
  readonly value: unknown;
  readonly message: string;
}

/** Validated parameters, or the first issues. */
export type ParamsResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly ParamIssue[] };

/** Runs the plugin's schema over raw parameters from YAML. */
export function validateParams(plugin: StrategyPlugin, raw: unknown): ParamsResult {
  const r = plugin.params.safeParse(raw ?? {});
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    issues: r.error.issues.map((i) => {
      // Read as every config document is (core's issuePlace): an unknown key is named itself, not its parent object.
      const place = issuePlace(i);
      const path = place.key !== undefined ? [...place.path, place.key] : place.path;
      return { path, value: valueAtPath(raw, path), message: place.rule };
    }),
  };
}
