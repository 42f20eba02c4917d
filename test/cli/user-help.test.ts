import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { register as account } from '../../src/client/commands/account.ts';
import { register as channels } from '../../src/client/commands/channels.ts';
import { register as media } from '../../src/client/commands/media.ts';
import { register as posts } from '../../src/client/commands/posts.ts';
import { register as webhooks } from '../../src/client/commands/webhooks.ts';

describe("the user command's help", () => {
  it('shows examples for every command and group', () => {
    const program = new Command('herald');
    for (const register of [account, channels, posts, media, webhooks]) register(program);
    const missing: string[] = [];
    const visit = (command: Command, path: string[]) => {
      let help = '';
      command.configureOutput({ writeOut: (text) => (help += text) });
      command.outputHelp();
      if (!/\nExamples:\n {2}\$ herald /.test(help)) missing.push(path.join(' '));
      for (const sub of command.commands) visit(sub, [...path, sub.name()]);
    };
    for (const command of program.commands) visit(command, [command.name()]);
    expect(program.commands.map((c) => c.name())).toEqual([
      'login',
      'logout',
      'whoami',
      'status',
      'workspaces',
      'channels',
      'groups',
      'posts',
      'upload',
      'upload-url',
      'upload-link',
      'media',
      'notifications',
      'webhooks',
    ]);
    expect(missing).toEqual([]);
  });
});
