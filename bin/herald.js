#!/usr/bin/env node
// Runs the compiled service (dist/), compiling src/ first when it changed since the last build.
import module from 'node:module';
import { ensureBuilt } from '../scripts/build.mjs';

// Node 22.1 and later keep V8's compiled code of the build and of node_modules between starts
// (in the system's temporary folder); Node 20 has no such cache and starts as before.
module.enableCompileCache?.();

await import(await ensureBuilt());
