// Preloaded into a `herald` process (NODE_OPTIONS=--import=…) by test/cli/startup.test.ts:
// records every module file the process loads, into HERALD_TEST_MODULE_TRACE. ES modules are
// noted by a loader hook as Node reads them (one line each, written by the hooks' thread);
// CommonJS modules, which Node 20 loads without those hooks, are taken from the require cache
// when the process exits. Uses of ICU's formatting (a number's or date's toLocaleString, an
// Intl formatter), which map megabytes of ICU data into the process, are noted as `intl:<name>`.
import fs from 'node:fs';
import module, { createRequire } from 'node:module';
import process from 'node:process';

const file = process.env.HERALD_TEST_MODULE_TRACE;
if (file) {
  module.register('./module-trace-hooks.mjs', import.meta.url, { data: { file } });
  const note = (name) => fs.appendFileSync(file, `intl:${name}\n`);
  for (const name of [
    'NumberFormat',
    'DateTimeFormat',
    'Collator',
    'PluralRules',
    'RelativeTimeFormat',
    'ListFormat',
    'Segmenter',
    'DisplayNames',
  ]) {
    const Original = Intl[name];
    Intl[name] = new Proxy(Original, {
      construct: (target, args, newTarget) => (note(name), Reflect.construct(target, args, newTarget)),
      apply: (target, self, args) => (note(name), Reflect.apply(target, self, args)),
    });
  }
  for (const [owner, method] of [
    [Number.prototype, 'toLocaleString'],
    [Date.prototype, 'toLocaleString'],
    [Date.prototype, 'toLocaleDateString'],
    [Date.prototype, 'toLocaleTimeString'],
    [String.prototype, 'localeCompare'],
  ]) {
    const original = owner[method];
    owner[method] = function (...args) {
      note(method);
      return original.apply(this, args);
    };
  }
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    fs.appendFileSync(
      file,
      Object.keys(cache)
        .map((name) => `${name}\n`)
        .join(''),
    );
  });
}
