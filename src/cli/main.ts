// The operator commands (serve, migrate, admin): run on the server, with its database.
import { runOperator } from './operator.ts';

const code = await runOperator(process.argv.slice(2));
// `serve` keeps running; any other command ends when its work is done.
if (code !== 0) process.exitCode = code;
