/**
 * Credentials come only from environment variables. A YAML file that carries anything that looks
 * like a credential is refused, so keys never end up in version control or backups of configs.
 */

/** Environment variables holding credentials. */
export const SECRET_ENV = {
  apiKey: 'KANCIL_API_KEY',
  apiSecret: 'KANCIL_API_SECRET',
  legacyKey: 'KANCIL_LEGACY_API_KEY',
  legacySecret: 'KANCIL_LEGACY_API_SECRET',
} as const;

/** Credentials of a run; any may be absent (paper, backtest and sandbox runs need none). */
export interface Secrets {
  readonly apiKey?: string;
  readonly apiSecret?: string;
  readonly legacyKey?: string;
  readonly legacySecret?: string;
}

/** Reads credentials from the environment. The returned object prints as redacted. */
export function loadSecrets(env: NodeJS.ProcessEnv = process.env): Secrets {
  const out: Record<string, string> = {};
  for (const [k, name] of Object.entries(SECRET_ENV)) {
    const v = env[name];
    if (v !== undefined && v !== '') out[k] = v;
  }
  // Serialising or inspecting the object must never show the values.
  Object.defineProperty(out, 'toJSON', { value: () => Object.fromEntries(Object.keys(out).map((k) => [k, '[redacted]'])), enumerable: false });
  Object.defineProperty(out, Symbol.for('nodejs.util.inspect.custom'), { value: () => `Secrets { ${Object.keys(out).join(', ')} }`, enumerable: false });
  return out;
}

/** Every secret value of `s` (for scrubbing log output). */
export function secretValues(s: Secrets): string[] {
  return [s.apiKey, s.apiSecret, s.legacyKey, s.legacySecret].filter((v): v is string => typeof v === 'string' && v.length > 0);
}

/**
 * Every environment variable whose value is secret: the API credentials, the console token, the
 * Telegram bot token and the webhook URL (its path is the key of most webhook services).
 */
export const SCRUBBED_ENV = [...Object.values(SECRET_ENV), 'KANCIL_CONSOLE_TOKEN', 'KANCIL_TELEGRAM_TOKEN', 'KANCIL_WEBHOOK_URL'] as const;

/**
 * The secret values of an environment, for scrubbing every output: each variable of
 * {@link SCRUBBED_ENV}, and of a URL value also the password and the path with its query (a
 * message may quote either alone).
 */
export function envSecretValues(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const name of SCRUBBED_ENV) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    out.push(v);
    if (!URL.canParse(v)) continue;
    const u = new URL(v);
    if (u.password !== '') out.push(decodeURIComponent(u.password));
    if (u.pathname.length > 1) out.push(u.pathname + u.search);
  }
  return out;
}

// Key names that hold credentials; compared with case, '_' and '-' ignored.
const SECRET_WORDS = ['apikey', 'apisecret', 'secret', 'secretkey', 'password', 'passwd', 'passphrase', 'token', 'accesstoken', 'listentoken', 'privatekey', 'credential', 'credentials', 'auth', 'authorization'];

/** True when a mapping key names a credential (apiKey, api_secret, password, token ...). */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[_-]/g, '');
  return SECRET_WORDS.some((w) => k === w || k.endsWith(w));
}

/** Path (keys and indices) of the first credential-looking key in a parsed document, if any. */
export function findSecretKey(v: unknown, at: readonly (string | number)[] = []): (string | number)[] | undefined {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const r = findSecretKey(v[i], [...at, i]);
      if (r) return r;
    }
  } else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (isSecretKey(k)) return [...at, k];
      const r = findSecretKey(x, [...at, k]);
      if (r) return r;
    }
  }
  return undefined;
}
