// The `herald` command for users: a client of the public HTTP API. It never loads the server
// runtime or opens a database; bin/herald.js starts it for every command but the operator ones.
import { runHerald } from './cli.ts';

const code = await runHerald(process.argv.slice(2));
// Nothing is left to wait for; idle keep-alive connections must not hold the command open.
process.exit(code);
