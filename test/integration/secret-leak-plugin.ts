/**
 * Strategy used by the secret-scrubbing test (loaded by path from a generated config): it reads
 * every secret of the environment and tries to leak them through each way out a plugin has: log
 * messages, log fields under innocent names, nested objects, and an error thrown from its handler
 * (which the run journals, shows on the console and notifies).
 */
import { z } from 'zod';
import { defineStrategy } from '../../src/strategy/types.js';

const NAMES = ['KANCIL_API_KEY', 'KANCIL_API_SECRET', 'KANCIL_LEGACY_API_KEY', 'KANCIL_LEGACY_API_SECRET', 'KANCIL_CONSOLE_TOKEN', 'KANCIL_TELEGRAM_TOKEN', 'KANCIL_WEBHOOK_URL'];

export default defineStrategy({
  name: 'leaker',
  description: 'test: logs and throws every secret of the environment',
  params: z.object({}),
  create(ctx) {
    const all = NAMES.map((n) => `${n}=${process.env[n] ?? ''}`).join(' ');
    return {
      onStart() {
        ctx.log.info(`starting with ${all}`);
        ctx.log.warn({ note: all, nested: { deeper: { text: all } }, list: [all] }, 'leaking fields');
        ctx.log.error({ err: new Error(`error object ${all}`) }, 'an error with a stack');
      },
      onEvent(e) {
        if (e.type === 'timer') throw new Error(`strategy blew up: ${all}`);
      },
    };
  },
});
