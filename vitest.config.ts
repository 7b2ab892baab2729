import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// `kancil` in tests and strategies resolves to the TypeScript sources (package.json's
// `kancil-source` condition), never to a possibly stale dist/.
const conditions = ['kancil-source', ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'strategies/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
