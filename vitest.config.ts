import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A zone with a half-hour offset and daylight saving time shakes out local-time bugs.
    env: { TZ: 'Australia/Adelaide' },
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
