import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { checkYamlText, flowDepth, MAX_CONFIG_BYTES, yamlValue } from './yamlLimits.js';

describe('YAML limits', () => {
  it('counts flow nesting outside strings and comments', () => {
    expect(flowDepth('a: [1, [2, {b: 3}]]\n')).toBe(3);
    expect(flowDepth('a: "[[[["\nb: \'{{\' # [[[[\n')).toBe(0);
    expect(flowDepth('a: "esc \\" [["\n')).toBe(0);
    // An apostrophe inside a plain word opens no string that could hide what follows.
    expect(flowDepth("a: it's [[[x]]]\n")).toBe(3);
  });

  it('refuses an oversized file and deep nesting, naming the file, before the parser sees them', () => {
    expect(() => checkYamlText('/c/big.yaml', `a: "${'x'.repeat(MAX_CONFIG_BYTES)}"\n`)).toThrow(/^\/c\/big\.yaml: .*bytes: a config file may hold at most 262144$/);
    const deep = `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    expect(() => checkYamlText('/c/deep.yaml', deep)).toThrow(ConfigError);
    expect(() => checkYamlText('/c/deep.yaml', `a: ${'['.repeat(65)}${']'.repeat(65)}`)).toThrow(/\/c\/deep\.yaml: .*nested 65 deep: at most 64/);
    expect(() => checkYamlText('/c/ok.yaml', 'a: [[1]]\n')).not.toThrow();
  });

  it('an alias bomb is a ConfigError naming the file; other failures are not disguised', () => {
    const bomb = { toJS: () => { throw new ReferenceError('Excessive alias count indicates a resource exhaustion attack'); } };
    expect(() => yamlValue(bomb, '/c/bomb.yaml')).toThrow(/^\/c\/bomb\.yaml: .*YAML aliases expand too far/);
    const bug = { toJS: () => { throw new TypeError('bug'); } };
    expect(() => yamlValue(bug, '/c/x.yaml')).toThrow(TypeError);
  });
});
