// The `herald` command for users: a client of the public HTTP API. It never loads the server
// runtime or opens a database; bin/herald.js starts it for every command but the operator ones.
import { Command } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { register as account } from './commands/account.ts';
import { register as channels } from './commands/channels.ts';
import { register as media } from './commands/media.ts';
import { register as posts } from './commands/posts.ts';
import { EXIT } from './errors.ts';
import { examples } from './program.ts';

/** Run by bin/herald.js in the operator entry; listed here so help and completion show them. */
const OPERATOR = ['serve', 'migrate', 'admin'];

const program = new Command('herald')
  .description('Herald from the command line: log in, post, upload, read the calendar.')
  .version(pkg.version, '-V, --version')
  .option('--json', 'print the API\'s answer exactly, as JSON')
  .option('-p, --profile <name>', 'the stored login to use (default: "default")')
  .option('-w, --workspace <id>', 'the workspace to act on, for a key that reaches several (sent as showorg)')
  .showHelpAfterError()
  // Usage errors end with their own exit code, distinct from API refusals and server failures.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage))
  .addHelpText(
    'after',
    `
Credentials: $XDG_CONFIG_HOME/herald/credentials.json (default ~/.config/herald), one entry per
--profile. HERALD_URL and HERALD_API_KEY override the stored login.

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
media(program);

examples(
  program
    .command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash or zsh')
    .action(async (shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh') {
        process.stderr.write(`herald: completion is for bash or zsh, not "${shell}".\n`);
        process.exit(EXIT.usage);
      }
      const { completionScript } = await import('./completion.ts');
      process.stdout.write(completionScript(program, shell, OPERATOR));
    }),
  ['herald completion bash >> ~/.bashrc', 'herald completion zsh > "${fpath[1]}/_herald"', 'source <(herald completion bash)'],
);

await program.parseAsync(process.argv);
// Nothing is left to wait for; idle keep-alive connections must not hold the command open.
process.exit(process.exitCode ?? EXIT.ok);
