/**
 * What `kancil strategies` shows of a plugin: its name, description and parameters with their
 * types, defaults and descriptions, read from its own zod schema (so the listing never drifts
 * from what the loader accepts).
 */
import { z } from 'zod';
import type { StrategyPlugin } from './types.js';

/** One parameter of a plugin. */
export interface ParamInfo {
  readonly name: string;
  /** JSON Schema type (or enum values) as short text: `integer`, `string`, `SMA | EMA`. */
  readonly type: string;
  /** The default, or undefined when the parameter must be given (or is optional without one). */
  readonly default: unknown;
  readonly required: boolean;
  readonly description: string | undefined;
}

/** A plugin as listed. */
export interface PluginInfo {
  readonly name: string;
  readonly description: string;
  readonly file: string;
  readonly params: readonly ParamInfo[];
}

type JsonSchema = { type?: string | string[]; enum?: unknown[]; default?: unknown; description?: string; properties?: Record<string, JsonSchema>; required?: string[]; anyOf?: JsonSchema[]; allOf?: JsonSchema[] };

function typeText(s: JsonSchema): string {
  if (s.enum !== undefined) return s.enum.map((v) => String(v)).join(' | ');
  if (s.anyOf !== undefined) return s.anyOf.map(typeText).join(' | ');
  if (Array.isArray(s.type)) return s.type.join(' | ');
  return s.type ?? 'any';
}

/** The listing of a loaded plugin. */
export function pluginInfo(plugin: StrategyPlugin, file: string): PluginInfo {
  const schema = z.toJSONSchema(plugin.params, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const obj = schema.properties !== undefined ? schema : (schema.allOf?.find((s) => s.properties !== undefined) ?? schema);
  const required = new Set(obj.required ?? []);
  const params = Object.entries(obj.properties ?? {}).map(([name, p]) => ({ name, type: typeText(p), default: p.default, required: required.has(name), description: p.description }));
  return { name: plugin.name, description: plugin.description, file, params };
}

/** The listing as text: one block per plugin, a line per parameter. */
export function pluginInfoText(infos: readonly PluginInfo[]): string {
  return infos
    .map((i) => {
      const width = Math.max(0, ...i.params.map((p) => p.name.length));
      const lines = i.params.map((p) => `    ${p.name.padEnd(width)}  ${p.type}${p.default !== undefined ? `, default ${JSON.stringify(p.default)}` : p.required ? ', required' : ', optional'}${p.description !== undefined ? `: ${p.description}` : ''}`);
      return `${i.name}  (${i.file})\n  ${i.description}\n${lines.length > 0 ? `  params:\n${lines.join('\n')}` : '  no params'}`;
    })
    .join('\n\n');
}
