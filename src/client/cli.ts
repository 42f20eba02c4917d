// The `herald` command for users: a client of the public HTTP API. It never loads the server
// runtime or opens a database. main.ts runs it as the process; tests may run it in their own.
import { Command, CommanderError } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { register as account } from './commands/account.ts';
import { register as analytics } from './commands/analytics.ts';
import { register as channels } from './commands/channels.ts';
import { register as imports } from './commands/imports.ts';
import { register as media } from './commands/media.ts';
import { register as posts } from './commands/posts.ts';
import { register as webhooks } from './commands/webhooks.ts';
import { EXIT } from './errors.ts';
import { examples } from './program.ts';
import { stdio, withStdio, type Stdio } from './stdio.ts';

/** Run by bin/herald.js in the operator entry; listed here so help and completion show them. */
const OPERATOR = ['serve', 'migrate', 'admin'];

/** The command tree of one run: commander keeps a run's options on its commands. */
function buildProgram(): Command {
  const program = new Command('herald')
    .description('Herald from the command line: log in, post, upload, read the calendar.')
    .version(pkg.version, '-V, --version')
    .option('--json', "print the API's answer exactly, as JSON")
    .option('-p, --profile <name>', 'the stored login to use (default: "default")')
    .option('-w, --workspace <id>', 'the workspace to act on, for a key that reaches several (sent as showorg)')
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => stdio().stdout.write(text),
      writeErr: (text) => stdio().stderr.write(text),
      getOutHelpWidth: () => helpWidth(stdio().stdout),
      getErrHelpWidth: () => helpWidth(stdio().stderr),
    })
    // Help, the version and usage errors end the run by throwing (see runHerald), not the process.
    .exitOverride()
    .addHelpText(
      'after',
      `
Credentials: $XDG_CONFIG_HOME/herald/credentials.json (default ~/.config/herald), one login per
instance in each --profile; a stored credential is sent only to the instance it was stored for.
HERALD_URL picks the instance (another one needs its own login or HERALD_API_KEY); HERALD_API_KEY
overrides the stored key.

Exit codes: 0 done, 2 usage error (bad option, date, file or channel), 3 refused by the API
(4xx: credential, permission, validation, not found), 4 server failure or unreachable (5xx,
network), 1 unexpected error.

Operator commands (run on the server, with its database): herald serve | migrate | admin --help

Examples:
  $ herald login --key --url https://herald.example.com
  $ herald channels list
  $ herald posts create "Hello" --channel ch_123 --at "2026-11-24 09:30" --tz Europe/Paris
  $ herald posts list --json
`,
    );

  account(program);
  channels(program);
  posts(program);
  imports(program);
  media(program);
  webhooks(program);
  analytics(program);

  examples(
    program
      .command('completion')
      .description('print a shell completion script')
      .argument('<shell>', 'bash or zsh')
      .action(async (shell: string) => {
        if (shell !== 'bash' && shell !== 'zsh') {
          stdio().stderr.write(`herald: completion is for bash or zsh, not "${shell}".\n`);
          stdio().exitCode = EXIT.usage;
          return;
        }
        const { completionScript } = await import('./completion.ts');
        stdio().stdout.write(completionScript(program, shell, OPERATOR));
      }),
    ['herald completion bash >> ~/.bashrc', 'herald completion zsh > "${fpath[1]}/_herald"', 'source <(herald completion bash)'],
  );

  return program;
}

/** Wraps help at a terminal's width; elsewhere commander's default. */
function helpWidth(stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }): number {
  // Undefined is commander's own answer off a terminal (it then wraps at 80).
  return (stream.isTTY ? stream.columns : undefined) as number;
}

/**
 * Runs `herald <args>` and gives its exit code: 0 done, 2 usage error, 3 refused by the API, 4
 * server failure or unreachable, 1 unexpected error. By default it reads and writes the
 * process's own streams and environment; `given` runs it on others (several runs at once each
 * keep their own).
 */
export async function runHerald(args: string[], given?: Stdio): Promise<number> {
  const run = async () => {
    try {
      await buildProgram().parseAsync(args, { from: 'user' });
    } catch (error) {
      // Usage errors end with their own exit code, distinct from API refusals and server failures.
      if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      throw error;
    }
    return stdio().exitCode ?? EXIT.ok;
  };
  return given ? withStdio(given, run) : run();
}
