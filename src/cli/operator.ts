import { Command, CommanderError, Option } from 'commander';
import { stdio, withStdio, type Stdio } from '../client/stdio.ts';
import { adminCommand } from './admin.commands.ts';

/** The operator command tree of one run: commander keeps a run's options on its commands. */
function buildProgram(): Command {
  const program = new Command('herald')
    .description('Herald: a self-hostable social publishing service')
    .option('--json', 'print results as JSON')
    .showHelpAfterError();

  program
    .command('serve')
    .description('run the service (API, scheduler and media store)')
    .addOption(
      new Option(
        '--role <role>',
        'which part of the service this process runs: all (one process), api (HTTP, only enqueues) or worker (publishes); api and worker need REDIS_URL',
      )
        .choices(['all', 'api', 'worker'])
        .default('all'),
    )
    .action(async (options: { role: 'all' | 'api' | 'worker' }) => {
      const { main } = await import('../server.ts');
      await main(stdio().env, { role: options.role });
    });

  program
    .command('migrate')
    .description('apply pending database migrations (once per release, before starting processes with MIGRATE_ON_START=false)')
    .action(async (_options: unknown, command: Command) => {
      const out = { json: Boolean(command.optsWithGlobals().json) };
      const [{ loadConfig }, { createKysely }, { migrateToLatest }, { fail, print }] = await Promise.all([
        import('../config.ts'),
        import('../db/connection.ts'),
        import('../db/migrate.ts'),
        import('./output.ts'),
      ]);
      try {
        const db = await createKysely(loadConfig(stdio().env).database);
        try {
          const applied = await migrateToLatest(db);
          print(out, { applied }, [applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date']);
        } finally {
          await db.destroy();
        }
      } catch (error) {
        fail(out, error);
      }
    });

  program.addCommand(adminCommand());
  ownRun(program);
  return program;
}

/**
 * Every command of the tree writes to the run's streams, and help and usage errors end the run by
 * throwing (see runOperator), not the process. Set on each command: `admin` is built on its own.
 */
function ownRun(command: Command): void {
  command
    .configureOutput({ writeOut: (text) => stdio().stdout.write(text), writeErr: (text) => stdio().stderr.write(text) })
    .exitOverride();
  for (const sub of command.commands) ownRun(sub);
}

/**
 * Runs `herald serve | migrate | admin …` and gives its exit code (commander's for help and usage
 * errors, 1 for a failed command). By default on the process's own streams and environment;
 * `given` runs it on others. `serve` returns once the service listens, which keeps running.
 */
export async function runOperator(args: string[], given?: Stdio): Promise<number> {
  const run = async () => {
    try {
      await buildProgram().parseAsync(args, { from: 'user' });
    } catch (error) {
      if (error instanceof CommanderError) return error.exitCode;
      throw error;
    }
    return stdio().exitCode ?? 0;
  };
  return given ? withStdio(given, run) : run();
}
