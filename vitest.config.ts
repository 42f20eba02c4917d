import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A zone with a half-hour offset and daylight saving time shakes out local-time bugs.
    // The AWS SDK (S3 media store) warns on every start that its 2027 releases will need Node 22.
    env: { TZ: 'Australia/Adelaide', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    pool: 'forks',
    // Each worker process runs its files one after another with one module cache: no file mocks
    // modules or changes the process's environment, and loading the server's modules once per
    // worker instead of once per file saves about half of the suite's time on two cores.
    isolate: false,
    // Test files mostly wait (on a database, a child process, a browser): two at a time keep two
    // cores busy where Vitest's default (one fewer than the cores) would run one. Files never
    // share state: each has its own database or schema, Redis prefix, ports and directories.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    testTimeout: 30_000,
    // A poll waits for something the page or the server does next; its timeout bounds a hang on a
    // loaded machine and is never a speed check (Vitest's default of 1 s is one).
    expect: { poll: { timeout: 20_000 } },
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
