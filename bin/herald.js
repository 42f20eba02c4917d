#!/usr/bin/env node
// Runs the compiled service (dist/), compiling src/ first when it changed since the last build.
import { ensureBuilt } from '../scripts/build.mjs';

await import(await ensureBuilt());
