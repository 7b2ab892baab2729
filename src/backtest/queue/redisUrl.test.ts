import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors.js';
import { parseRedisUrl, redactRedisUrls } from './redisUrl.js';

describe('parseRedisUrl', () => {
  it('reads host, port, database and credentials', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380/2')).toMatchObject({ host: '127.0.0.1', port: 6380, db: 2, tls: false, display: 'redis://127.0.0.1:6380/2' });
    expect(parseRedisUrl('redis://box')).toMatchObject({ host: 'box', port: 6379, db: 0 });
    expect(parseRedisUrl('rediss://u:p%40ss@[::1]:7000')).toMatchObject({ host: '::1', port: 7000, username: 'u', password: 'p@ss', tls: true, display: 'rediss://u:***@[::1]:7000' });
  });

  it('refuses a bad URL naming the option and the URL, without its password', () => {
    for (const url of ['http://:secret@host:1', 'redis://:secret@host:1/x', 'redis://:secret@host:99999', 'not a url secret', 'redis://:secret@host:1/0?x=1']) {
      let err: unknown;
      try {
        parseRedisUrl(url);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ValidationError);
      const msg = (err as Error).message;
      expect(msg).toContain('--queue');
      if (url.includes('@')) expect(msg).toContain(':***@host');
      if (url.includes('://')) expect(msg).not.toContain('secret');
    }
  });

  it('redacts the password of every Redis URL in a text', () => {
    expect(redactRedisUrls('a redis://:secret@h:1/0 b rediss://me:pw@h c redis://h:1')).toBe('a redis://:***@h:1/0 b rediss://me:***@h c redis://h:1');
  });
});
