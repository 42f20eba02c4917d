import { Command, Option } from 'commander';
import { adminCommand } from './admin.commands.ts';

const program = new Command('herald')
  .description('Herald: a self-hostable social publishing service')
  .option('--json', 'print results as JSON')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the service (API, scheduler and media store)')
  .addOption(
    new Option('--role <role>', 'which part of the service this process runs: all (one process), api (HTTP, only enqueues) or worker (publishes); api and worker need REDIS_URL')
      .choices(['all', 'api', 'worker'])
      .default('all'),
  )
  .action(async (options: { role: 'all' | 'api' | 'worker' }) => {
    const { main } = await import('../server.ts');
    await main(process.env, { role: options.role });
  });

program
  .command('migrate')
  .description('apply pending database migrations (once per release, before starting processes with MIGRATE_ON_START=false)')
  .action(async (_options: unknown, command: Command) => {
    const out = { json: Boolean(command.optsWithGlobals().json) };
    const [{ loadConfig }, { createKysely }, { migrateToLatest }, { fail, print }] = await Promise.all([
      import('../config.ts'),
      import('../db/dialect.ts'),
      import('../db/migrate.ts'),
      import('./output.ts'),
    ]);
    try {
      const db = await createKysely(loadConfig().database);
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

await program.parseAsync(process.argv);
