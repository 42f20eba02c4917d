#!/usr/bin/env node
// Runs the compiled command (dist/), compiling src/ first when it changed since the last build.
// The operator commands load the server runtime; every other command is the user command, a
// small client of the HTTP API that never opens the database, so it has its own entry.
import { ensureBuilt } from '../scripts/build.mjs';

const OPERATOR = new Set(['serve', 'migrate', 'admin']);
const operator = process.argv.slice(2).find((arg) => !arg.startsWith('-'));

await import(await ensureBuilt(undefined, OPERATOR.has(operator ?? '') ? 'cli' : 'user'));
