#!/usr/bin/env node
// Runs the compiled command (dist/), compiling src/ first when it changed since the last build.
// The operator commands load the server runtime; every other command is the user command, a
// small client of the HTTP API that never opens the database, so it has its own entry.
import module from 'node:module';
import { ensureBuilt } from '../scripts/build.mjs';

// Node 22.1 and later keep V8's compiled code of the build and of node_modules between starts
// (in the system's temporary folder); Node 20 has no such cache and starts as before.
module.enableCompileCache?.();

const OPERATOR = new Set(['serve', 'migrate', 'admin']);
/** The user command's options that take a value, which is not a command name (`--profile admin`). */
const VALUED = new Set(['-p', '--profile', '-w', '--workspace']);
const args = process.argv.slice(2);
const operator = args.find((arg, i) => !arg.startsWith('-') && !VALUED.has(args[i - 1] ?? ''));

await import(await ensureBuilt(undefined, OPERATOR.has(operator ?? '') ? 'cli' : 'user'));
