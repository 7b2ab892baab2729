import { describe, expect, it } from 'vitest';
import { checkBearer, isLoopbackHost, tokenProblem } from './auth.js';

describe('console auth', () => {
  it('knows loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '128.0.0.1']) expect(isLoopbackHost(h), h).toBe(false);
  });

  it('accepts only the exact bearer token', () => {
    const token = 'abcdefghijklmnop0123';
    expect(checkBearer(`Bearer ${token}`, token)).toBe('ok');
    expect(checkBearer(`bearer ${token}`, token)).toBe('ok');
    expect(checkBearer(undefined, token)).toBe('missing');
    expect(checkBearer('', token)).toBe('missing');
    expect(checkBearer(`Bearer ${token}x`, token)).toBe('wrong');
    expect(checkBearer(`Basic ${token}`, token)).toBe('wrong');
    expect(checkBearer('Bearer ', token)).toBe('wrong');
  });

  it('names why a token cannot serve: whitespace at either end, inner spaces or non-ASCII, too short', () => {
    expect(tokenProblem('abcdefghijklmnop0123')).toBeUndefined();
    expect(tokenProblem('!#$%&()*+,-./:;<=>?@[]^_{|}~')).toBeUndefined();
    expect(tokenProblem(' abcdefghijklmnop0123')).toMatch(/starts or ends with whitespace/);
    expect(tokenProblem('abcdefghijklmnop0123\n')).toMatch(/starts or ends with whitespace/);
    expect(tokenProblem('abcdefgh ijklmnop0123')).toMatch(/a space, a control or a non-ASCII/);
    expect(tokenProblem('abcdefgh\u00e9ijklmnop0123')).toMatch(/a space, a control or a non-ASCII/);
    expect(tokenProblem('short')).toMatch(/has 5 characters: .* at least 16/);
  });
});
