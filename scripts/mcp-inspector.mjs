#!/usr/bin/env node
// The MCP Inspector's command-line client (the devDependency @modelcontextprotocol/inspector-cli),
// run so that it works from anywhere: `node scripts/mcp-inspector.mjs <url> --transport http
// --header "Authorization: Bearer …" --method tools/list` (docs/mcp.md; test/mcp/inspector.test.ts
// runs the documented commands).
//
// Why not `npx @modelcontextprotocol/inspector-cli --cli …`: that launcher prints v1's deprecation
// notice, then starts build/index.js, which looks for its own package.json relative to the working
// directory ("Cannot find module …/package.json" from most folders). The client is build/index.js
// with the same arguments less `--cli`, run here from its own folder. The inspector's next major
// version needs Node 22.19, above what Herald supports (20.19).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

const client = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/index.js');
const args = process.argv.slice(2).filter((arg) => arg !== '--cli');
const child = spawn(process.execPath, [client, ...args], { cwd: path.dirname(client), stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
