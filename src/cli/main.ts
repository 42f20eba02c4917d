import { Command, Option } from 'commander';
import { adminCommand } from './admin.commands.ts';

const program = new Command('herald')
  .description('Herald: a self-hostable social publishing service')
  .option('--json', 'print results as JSON')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the service (API, scheduler and media store)')
  .addOption(new Option('--role <role>', 'which part of the service this process runs').choices(['all']).default('all'))
  .action(async () => {
    const { main } = await import('../server.ts');
    await main();
  });

program.addCommand(adminCommand());

await program.parseAsync(process.argv);
