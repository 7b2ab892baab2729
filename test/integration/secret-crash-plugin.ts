/**
 * Strategy used by the secret-scrubbing test of a crash: it throws an error quoting the API key
 * from a timer callback, outside anything that could catch it, as a plugin bug would.
 */
import { z } from 'zod';
import { defineStrategy } from '../../src/strategy/types.js';

export default defineStrategy({
  name: 'crasher',
  description: 'test: an uncaught error quoting the API key',
  params: z.object({}),
  create() {
    setTimeout(() => {
      throw new Error(`plugin crashed with key ${process.env.KANCIL_API_KEY ?? ''}`);
    }, 0);
    return { onEvent: () => undefined };
  },
});
