import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    // The instrument cache stays off unless a test turns it on (test/cache.test.ts): a hit would pass for a rewrite.
    env: { KOMORIUM_TS_CACHE: '0' },
  },
});
