import { describe, expect, it } from 'vitest';
import { tokenBits } from './doctorLocal.js';

describe('tokenBits', () => {
  it('counts the alphabet a token draws from, and nothing for a repeated pattern', () => {
    // openssl rand -hex 32: 64 of [0-9a-f] (counted as lower case and digits: 36 characters).
    expect(tokenBits('3f9a0c1d7e2b4a6f8c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b')).toBe(330);
    expect(tokenBits('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toBe(0);
    expect(tokenBits('1212121212121212121212')).toBe(0);
    expect(tokenBits('Abcdefgh12345678')).toBe(95);
  });
});
