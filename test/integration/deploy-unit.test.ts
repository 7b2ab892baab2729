/**
 * deploy/: the systemd units install as shipped and agree with the code. `systemd-analyze verify`
 * checks their syntax where systemd is installed; the rest is read from the files: a user the
 * unit does not need created by hand, a state directory the config's ledger lies in, every secret
 * the code reads listed beside the env file, an OnFailure= unit that exists, and the failure
 * notifier posting to a webhook and a Telegram fake on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../src/cli/runConfig.js';
import { NOTIFY_ENV } from '../../src/cli/runConsole.js';
import { SECRET_ENV } from '../../src/config/secrets.js';
import { CONSOLE_TOKEN_ENV } from '../../src/console/auth.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const deploy = (f: string): string => path.join(root, 'deploy', f);
const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));

/** `Key=value` lines of one section of a unit file (a key may repeat). */
function section(text: string, name: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let inside = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) inside = line === `[${name}]`;
    else if (inside && line !== '' && !line.startsWith('#')) {
      const i = line.indexOf('=');
      const k = line.slice(0, i);
      out.set(k, [...(out.get(k) ?? []), line.slice(i + 1)]);
    }
  }
  return out;
}

const unitText = readFileSync(deploy('kancil.service'), 'utf8');
const unit = section(unitText, 'Unit');
const service = section(unitText, 'Service');
const one = (m: Map<string, string[]>, k: string): string | undefined => m.get(k)?.at(-1);

describe('deploy/kancil.service', () => {
  it('runs as a user systemd makes, in a state directory systemd creates', () => {
    const dynamic = one(service, 'DynamicUser') === 'yes';
    const sysusers = existsSync(deploy('kancil.sysusers'));
    expect(dynamic || sysusers, 'DynamicUser=yes or a sysusers.d file creating User=').toBe(true);
    expect(one(service, 'StateDirectory')).toBe('kancil');
    expect(one(service, 'WorkingDirectory')).toBe('/var/lib/kancil');
    // ProtectSystem=strict makes everything else read-only; the state directory is the one writable place.
    expect(one(service, 'ProtectSystem')).toBe('strict');
    expect(one(service, 'ProtectHome')).toBe('yes');
  });

  it('starts the example live config, whose ledger (and nonce file beside it) is in the state directory', () => {
    const exec = one(service, 'ExecStart') ?? '';
    const [node, script, cmd, config] = exec.split(/\s+/);
    expect(node).toMatch(/^\/.*\/node$/);
    expect(script).toBe('/opt/kancil/bin/kancil.mjs');
    expect(existsSync(path.join(root, 'bin', 'kancil.mjs'))).toBe(true);
    expect(cmd).toBe('run');
    expect(config).toBe('/etc/kancil/live.yaml');
    expect(unitText).toContain('config/live.example.yaml');
    const cfg = loadRunConfig(path.join(root, 'config', 'live.example.yaml'));
    expect(cfg.mode).toBe('live');
    expect(path.isAbsolute(cfg.storage.path)).toBe(true);
    expect(path.dirname(cfg.storage.path)).toBe('/var/lib/kancil');
    // The node path is explained, not only hard-coded.
    expect(unitText).toMatch(/command -v node/);
  });

  it('reads every secret the code reads from the env file, and lists each beside it', () => {
    expect(one(service, 'EnvironmentFile')).toBe('/etc/kancil/kancil.env');
    const secrets = [...Object.values(SECRET_ENV), CONSOLE_TOKEN_ENV, ...Object.values(NOTIFY_ENV)];
    for (const name of secrets) expect(unitText, name).toMatch(new RegExp(`^#\\s+${name}=`, 'm'));
  });

  it('alerts through an OnFailure= unit shipped beside it, and does not restart a bad config', () => {
    const onFailure = one(unit, 'OnFailure') ?? '';
    expect(onFailure).toMatch(/^kancil-failure@%n\.service$/);
    const failure = readFileSync(deploy('kancil-failure@.service'), 'utf8');
    const exec = one(section(failure, 'Service'), 'ExecStart') ?? '';
    expect(exec).toContain('/opt/kancil/deploy/notify-failure.mjs');
    expect(existsSync(deploy('notify-failure.mjs'))).toBe(true);
    expect(one(service, 'RestartPreventExitStatus')).toBe('2');
    expect(Number(one(unit, 'StartLimitBurst'))).toBeGreaterThan(0);
  });

  it('archives the ledger weekly as the same user, the bot stopped and started again around it', () => {
    const text = readFileSync(deploy('kancil-archive.service'), 'utf8');
    const u = section(text, 'Unit');
    const s = section(text, 'Service');
    expect(one(u, 'Conflicts')).toBe('kancil.service');
    expect(one(u, 'OnSuccess')).toBe('kancil.service');
    expect(one(u, 'OnFailure')?.split(' ')).toContain('kancil.service');
    // DynamicUser names the user after the unit: kancil.service's is "kancil".
    expect(one(s, 'User')).toBe('kancil');
    expect(one(s, 'StateDirectory')).toBe(one(service, 'StateDirectory'));
    expect(one(s, 'ExecStart')).toBe(`${one(service, 'ExecStart')?.split(' ').slice(0, 2).join(' ')} ledger archive --keep-days 7 /etc/kancil/live.yaml`);
    expect(one(section(readFileSync(deploy('kancil-archive.timer'), 'utf8'), 'Timer'), 'OnCalendar')).toMatch(/^Sun /);
  });

  it.skipIf(ANALYZE === undefined)(`passes systemd-analyze verify (${ANALYZE ?? 'skipped: systemd-analyze not installed (Debian package systemd)'})`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kancil-unit-'));
    try {
      for (const f of ['kancil.service', 'kancil-failure@.service', 'kancil-archive.service', 'kancil-archive.timer']) copyFileSync(deploy(f), path.join(dir, f));
      copyFileSync(deploy('kancil-failure@.service'), path.join(dir, 'kancil-failure@kancil.service.service'));
      // --man=no: Documentation= is not looked up; exit status non-zero on any bad setting.
      for (const f of ['kancil.service', 'kancil-failure@kancil.service.service', 'kancil-archive.service', 'kancil-archive.timer']) {
        const r = await run(ANALYZE ?? '', ['verify', '--man=no', path.join(dir, f)], { timeout: 20_000 });
        expect(r.stderr, f).toBe('');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('deploy/notify-failure.mjs', () => {
  it('posts the failed unit to the webhook and to Telegram, and never prints the bot token', async () => {
    const got: { url: string; body: Record<string, unknown> }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ url: req.url ?? '', body: JSON.parse(body) as Record<string, unknown> });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const token = '123456:secret-bot-token';
      const env = { PATH: process.env.PATH ?? '', KANCIL_WEBHOOK_URL: `${base}/hook`, KANCIL_TELEGRAM_TOKEN: token, KANCIL_TELEGRAM_CHAT_ID: '42', KANCIL_TELEGRAM_BASE_URL: base };
      const r = await run(process.execPath, [deploy('notify-failure.mjs'), 'kancil.service'], { env, timeout: 20_000 });
      expect(r.stdout).toContain('webhook: sent');
      expect(r.stdout).toContain('telegram: sent');
      expect(r.stdout + r.stderr).not.toContain(token);
      const hook = got.find((g) => g.url === '/hook');
      expect(hook?.body).toMatchObject({ kind: 'serviceFailed', unit: 'kancil.service' });
      const tg = got.find((g) => g.url === `/bot${token}/sendMessage`);
      expect(tg?.body.chat_id).toBe('42');
      expect(String(tg?.body.text)).toContain('kancil.service failed');
      // A channel that cannot be reached is exit 1 (systemd then shows the failure unit failed too).
      server.close();
      const down = await run(process.execPath, [deploy('notify-failure.mjs'), 'kancil.service'], { env: { ...env, KANCIL_TELEGRAM_TOKEN: '' }, timeout: 20_000 }).then(
        () => 0,
        (e: { code?: number; stderr?: string }) => {
          expect(e.stderr).toContain('webhook: not sent');
          return e.code;
        },
      );
      expect(down).toBe(1);
    } finally {
      server.close();
    }
  });
});
