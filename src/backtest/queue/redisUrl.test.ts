import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors.js';
import { parseRedisUrl, passwordWarning, redactRedisUrls, resolveRedisTarget, type RedisTarget } from './redisUrl.js';

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

describe('resolveRedisTarget', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-redis-pw-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pwFile = path.join(dir, 'pw');
  writeFileSync(pwFile, 'from-file\n');

  it('takes the password from KANCIL_REDIS_URL (same host and port) or a file, never needing it on the command line', () => {
    const env = { KANCIL_REDIS_URL: 'redis://:env-pw@box:7000/1' };
    expect(resolveRedisTarget(undefined, env)).toMatchObject({ host: 'box', port: 7000, db: 1, password: 'env-pw', passwordFrom: 'KANCIL_REDIS_URL' });
    expect(resolveRedisTarget('redis://box:7000/2', env)).toMatchObject({ db: 2, password: 'env-pw', display: 'redis://box:7000/2' });
    expect(resolveRedisTarget('redis://other:7000', env)?.password).toBeUndefined();
    expect(resolveRedisTarget('redis://other:7000', { ...env, KANCIL_REDIS_PASSWORD_FILE: pwFile })).toMatchObject({ password: 'from-file', passwordFrom: pwFile });
    expect(resolveRedisTarget(undefined, {})).toBeUndefined();
    const onCommandLine = resolveRedisTarget('redis://:cli-pw@box', env);
    expect(onCommandLine).toMatchObject({ password: 'cli-pw', passwordFrom: '--queue' });
    expect(passwordWarning(onCommandLine as RedisTarget)).toMatch(/visible to every user of this machine \(ps\); put the URL in KANCIL_REDIS_URL/);
    expect(passwordWarning(resolveRedisTarget(undefined, env) as RedisTarget)).toBeUndefined();
  });

  it('refuses an unreadable or empty password file, naming the variable', () => {
    const empty = path.join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(() => resolveRedisTarget('redis://box', { KANCIL_REDIS_PASSWORD_FILE: path.join(dir, 'none') })).toThrow(/invalid KANCIL_REDIS_PASSWORD_FILE=.*none.*cannot be read: ENOENT/);
    expect(() => resolveRedisTarget('redis://box', { KANCIL_REDIS_PASSWORD_FILE: empty })).toThrow(/KANCIL_REDIS_PASSWORD_FILE.*is empty/);
    expect(() => resolveRedisTarget(undefined, { KANCIL_REDIS_URL: 'http://:s3@x' })).toThrow(/KANCIL_REDIS_URL.*:\*\*\*@x/);
  });
});
