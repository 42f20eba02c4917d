// Preloaded into a `herald` process (NODE_OPTIONS=--import=…) by test/cli/startup.test.ts:
// records every module file the process loads, into HERALD_TEST_MODULE_TRACE. ES modules are
// noted by a loader hook as Node reads them (one line each, written by the hooks' thread);
// CommonJS modules, which Node 20 loads without those hooks, are taken from the require cache
// when the process exits.
import fs from 'node:fs';
import module, { createRequire } from 'node:module';
import process from 'node:process';

const file = process.env.HERALD_TEST_MODULE_TRACE;
if (file) {
  module.register('./module-trace-hooks.mjs', import.meta.url, { data: { file } });
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    fs.appendFileSync(file, Object.keys(cache).map((name) => `${name}\n`).join(''));
  });
}
