import { describe, expect, it } from 'vitest';
import { REDACTED, addSecretValues, scrubSecretText, secretPattern } from './secretScrub.js';

describe('secret scrubbing', () => {
  it('replaces a registered value in any spelling, longest first', () => {
    const key = 'scrubTestKey"/+ 9f2';
    addSecretValues([key, 'scrubTestKey', undefined, '', 'ab']);
    expect(scrubSecretText(`plain ${key} json ${JSON.stringify({ k: key })} url ?k=${encodeURIComponent(key)}`)).toBe(`plain ${REDACTED} json {"k":"${REDACTED}"} url ?k=${REDACTED}`);
    expect(scrubSecretText('ab stays, scrubTestKey goes')).toBe(`ab stays, ${REDACTED} goes`);
  });

  it('has no pattern for nothing worth scrubbing', () => {
    expect(secretPattern(['', 'abc'])).toBeUndefined();
  });
});
