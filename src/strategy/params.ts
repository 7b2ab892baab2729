/** Validation of a plugin's parameters with its own zod schema, issues named by path and value. */
import { z } from 'zod';
import { issuePlace, valueAtPath } from '../core/configIssue.js';
import type { StrategyPlugin } from './types.js';

/**
 * A parameter that is a plain non-negative decimal written as a string ("0.001"): kept as text by
 * the schema, made a Decimal by the plugin, so no YAML float ever rounds a price or a quantity.
 */
export const decimalParam = z.string().regex(/^\d+(\.\d+)?$/, 'expected a plain non-negative decimal string such as "0.001"');

/**
 * A decimal parameter that must be above zero (a quantity, a tick or step size): "0" would make a
 * strategy place nothing, or orders every venue refuses, without a word.
 */
export const positiveDecimalParam = decimalParam.refine((v) => /[1-9]/.test(v), 'must be above 0');

/** One problem with a parameter: its path below `params`, the value found and the rule broken. */
export interface ParamIssue {
  readonly path: readonly PropertyKey[];
  readonly value: unknown;
  readonly message: string;
}

/** Validated parameters, or the first issues. */
export type ParamsResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly ParamIssue[] };

/**
 * Keys of `raw` that an object schema would silently drop. zod's default object mode strips
 * unknown keys, so a misspelt parameter (`spreadbps: 2`) would run with the default instead, with
 * no word: a config error like any unknown key of the run config. A schema that declares what
 * to do with other keys (`.passthrough()`, `.catchall()`, `.strict()`) decides for itself.
 */
function droppedKeys(schema: StrategyPlugin['params'], raw: unknown): string[] {
  if (!(schema instanceof z.ZodObject) || schema._zod.def.catchall !== undefined) return [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  const known = schema.shape as Record<string, unknown>;
  return Object.keys(raw).filter((k) => !Object.hasOwn(known, k));
}

/** Runs the plugin's schema over raw parameters from YAML; a parameter the schema does not know is an issue. */
export function validateParams(plugin: StrategyPlugin, raw: unknown): ParamsResult {
  const unknown = droppedKeys(plugin.params, raw);
  if (unknown.length > 0) return { ok: false, issues: unknown.map((k) => ({ path: [k], value: valueAtPath(raw, [k]), message: `unknown key "${k}"` })) };
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
