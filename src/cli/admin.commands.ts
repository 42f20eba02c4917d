import { Command, InvalidArgumentError } from 'commander';
import { stdio } from '../client/stdio.ts';
import { loadConfig } from '../config.ts';
import { openRuntime, type Runtime } from '../runtime.ts';
import { KEYS_CHECK_INTERVAL_MS } from '../oauth/oauth.service.ts';
import { emailSchema } from '../users/users.schema.ts';
import { fail, print, printList, type Printer } from './output.ts';

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function booleanFlag(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError('use true or false');
}

/** A quota size; commander cannot carry null, so "unlimited" stays a word until it is used. */
function quota(value: string): number | 'unlimited' {
  if (value === 'unlimited') return value;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('use a whole number or "unlimited"');
  return n;
}

function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidArgumentError('must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** Wraps an action: opens the database, runs, prints, closes; errors become a message and exit code 1. */
function action<A extends unknown[]>(run: (rt: Runtime, out: Printer, ...args: A) => Promise<void>) {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    const out: Printer = { json: Boolean(command.optsWithGlobals().json) };
    let runtime: Runtime | undefined;
    try {
      runtime = await openRuntime(loadConfig(stdio().env));
      await run(runtime, out, ...args);
    } catch (error) {
      fail(out, error);
    } finally {
      await runtime?.close();
    }
  };
}

/** `herald admin …`: what whoever runs the service uses to set up users, workspaces and keys. */
export function adminCommand(): Command {
  const admin = new Command('admin').description('manage users, workspaces, channels and keys (talks to the database directly)');

  const workspace = admin.command('workspace').description('workspaces');
  workspace
    .command('create')
    .requiredOption('--name <name>', 'workspace name')
    .option('--owner <id|email>', 'the user who owns it (otherwise add members with `member add`)')
    .action(
      action(async (rt, out, opts: { name: string; owner?: string }) => {
        const owner = opts.owner === undefined ? undefined : await rt.services.users.get(opts.owner);
        const created = await rt.services.workspaces.create({ name: opts.name, ownerId: owner?.id });
        print(out, { ...created, owner: owner ? { id: owner.id, email: owner.email } : null }, [
          `workspace ${created.id} created ("${created.name}")${owner ? `, owned by ${owner.email}` : '; it has no members yet (herald admin member add)'}`,
        ]);
      }),
    );
  workspace
    .command('list')
    .description('every workspace, oldest first')
    .action(
      action(async (rt, out) => {
        printList(out, await rt.services.workspaces.list(), (w) => `${w.id}  ${w.name}  (plan ${w.plan.name})`);
      }),
    );
  workspace
    .command('delete')
    .argument('<id>', 'workspace id')
    .description('delete a workspace with its members, groups and keys; refused while it has channels or media files')
    .action(
      action(async (rt, out, id: string) => {
        const deleted = await rt.services.workspaces.delete(id);
        print(out, { ...deleted, deleted: true }, [`workspace ${deleted.id} ("${deleted.name}") deleted`]);
      }),
    );

  const user = admin.command('user').description('users');
  user
    .command('create')
    .requiredOption('--email <email>', 'e-mail address')
    .option('--name <name>', 'display name')
    .action(
      action(async (rt, out, opts: { email: string; name?: string }) => {
        if (!emailSchema.safeParse(opts.email).success) throw new InvalidArgumentError(`"${opts.email}" is not an e-mail address`);
        const created = await rt.services.users.create(opts);
        print(out, created, [`user ${created.id} created (${created.email})`]);
      }),
    );
  user
    .command('list')
    .description('every user, oldest first')
    .action(
      action(async (rt, out) => {
        printList(out, await rt.services.users.list(), (u) => `${u.id}  ${u.email}${u.name ? `  (${u.name})` : ''}`);
      }),
    );
  user
    .command('delete')
    .argument('<id|email>', 'user id or e-mail')
    .description('delete a user with their memberships and keys; refused while they are the only owner of a workspace')
    .action(
      action(async (rt, out, idOrEmail: string) => {
        const deleted = await rt.services.users.delete(idOrEmail);
        print(out, { ...deleted, deleted: true }, [`user ${deleted.id} (${deleted.email}) deleted, with their keys`]);
      }),
    );
  user
    .command('sign-in-link')
    .argument('<id|email>', 'user id or e-mail')
    .description('a one-time link (24 hours) that signs the user in to the account pages without mail')
    .action(
      action(async (rt, out, idOrEmail: string) => {
        const u = await rt.services.users.get(idOrEmail);
        const link = await rt.services.signIn.createLink(u.id);
        print(out, { userId: u.id, email: u.email, ...link }, [
          `one-time sign-in link for ${u.email} (until ${link.expiresAt}):`,
          `  ${link.url}`,
        ]);
      }),
    );

  const member = admin.command('member').description('workspace memberships and roles');
  // `add` and `set-role` give a user a role in a workspace, as a new member or as one already there.
  const roleCommand = (name: 'add' | 'set-role', give: 'addMember' | 'setRole') =>
    member
      .command(name)
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--user <id|email>', 'user id or e-mail')
      .requiredOption('--role <role>', 'owner, admin, editor, contributor or viewer')
      .action(
        action(async (rt, out, opts: { workspace: string; user: string; role: string }) => {
          const u = await rt.services.users.get(opts.user);
          const m = await rt.services.workspaces[give](opts.workspace, u.id, opts.role);
          print(out, m, [`${u.email} is now ${m.role} of workspace ${m.workspaceId}`]);
        }),
      );
  roleCommand('add', 'addMember');
  roleCommand('set-role', 'setRole');
  member
    .command('list')
    .requiredOption('--workspace <id>', 'workspace id')
    .action(
      action(async (rt, out, opts: { workspace: string }) => {
        printList(out, await rt.services.workspaces.members(opts.workspace), (m) => `${m.userId}  ${m.email}  ${m.role}`);
      }),
    );
  member
    .command('remove')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--user <id|email>', 'user id or e-mail')
    .action(
      action(async (rt, out, opts: { workspace: string; user: string }) => {
        const u = await rt.services.users.get(opts.user);
        await rt.services.workspaces.removeMember(opts.workspace, u.id);
        print(out, { workspaceId: opts.workspace, userId: u.id, removed: true }, [`${u.email} removed from workspace ${opts.workspace}`]);
      }),
    );

  const group = admin.command('group').description('client groups');
  group
    .command('create')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'group name')
    .action(
      action(async (rt, out, opts: { workspace: string; name: string }) => {
        await rt.services.workspaces.get(opts.workspace);
        const created = await rt.services.groups.create(opts.workspace, opts.name);
        print(out, created, [`client group ${created.id} created ("${created.name}")`]);
      }),
    );

  const channel = admin.command('channel').description('channels');
  channel
    .command('create')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--provider <identifier>', 'platform identifier, e.g. webhook or bluesky')
    .requiredOption('--name <name>', 'display name')
    .option('--profile <handle>', 'the account handle')
    .option('--picture <url>', 'profile picture URL')
    .option('--group <id>', 'client group id')
    .option('--config <json>', 'provider configuration and credentials (JSON object); stored encrypted', jsonObject)
    .action(
      action(
        async (
          rt,
          out,
          opts: {
            workspace: string;
            provider: string;
            name: string;
            profile?: string;
            picture?: string;
            group?: string;
            config?: Record<string, unknown>;
          },
        ) => {
          const { channel: created, secret } = await rt.services.channels.createShowingSecret(opts.workspace, {
            ...opts,
            groupId: opts.group,
          });
          const shown = secret === null ? [] : [`signing secret (shown once, give it to the receiver): ${secret}`];
          print(out, secret === null ? created : { ...created, secret }, [
            `channel ${created.id} created (${created.provider}, "${created.name}")`,
            ...shown,
          ]);
        },
      ),
    );

  channel
    .command('list')
    .requiredOption('--workspace <id>', 'workspace id')
    .action(
      action(async (rt, out, opts: { workspace: string }) => {
        await rt.services.workspaces.get(opts.workspace);
        printList(
          out,
          await rt.services.channels.list(opts.workspace),
          (c) =>
            `${c.id}  ${c.provider}  "${c.name}"${c.profile ? `  @${c.profile}` : ''}${c.disabled ? `  disabled (${c.disabledReason ?? 'disabled'})` : ''}`,
        );
      }),
    );
  // The commands that act on one channel of a workspace.
  const channelCommand = (name: string) =>
    channel.command(name).argument('<id>', 'channel id').requiredOption('--workspace <id>', 'workspace id');
  // `disable` and `enable` switch a channel off and on, answering the channel.
  const switchCommand = (name: 'disable' | 'enable', run: 'disableByOperator' | 'enable') =>
    channelCommand(name).action(
      action(async (rt, out, id: string, opts: { workspace: string }) => {
        const updated = await rt.services.channels[run](opts.workspace, id);
        print(out, updated, [`channel ${updated.id} ${name}d`]);
      }),
    );
  switchCommand('disable', 'disableByOperator').description(
    'stop a channel from publishing; its posts wait (and fail when due) until it is enabled',
  );
  switchCommand('enable', 'enable');
  channelCommand('delete')
    .option('--force', 'move the posts scheduled on it to draft first, instead of refusing')
    .option('--purge', 'remove the channel for good (also one already deleted), with all its posts: drafts and published history')
    .description(
      'delete a channel, keeping its posts (connecting the account again restores it); refused while posts are scheduled on it (unless --force)',
    )
    .action(
      action(async (rt, out, id: string, opts: { workspace: string; force?: boolean; purge?: boolean }) => {
        const purge = opts.purge === true;
        const deleted = await rt.services.channels.delete(opts.workspace, id, { force: opts.force === true, purge });
        print(out, { id: deleted.id, name: deleted.name, provider: deleted.provider, deleted: true, purged: purge }, [
          purge
            ? `channel ${deleted.id} ("${deleted.name}") removed for good, with its posts`
            : `channel ${deleted.id} ("${deleted.name}") deleted; its posts are kept`,
        ]);
      }),
    );

  channelCommand('reconnect')
    .option(
      '--config <json>',
      'the configuration fields to change (JSON object); the others, secrets included, are kept; null removes a field',
      jsonObject,
    )
    .action(
      action(async (rt, out, id: string, opts: { workspace: string; config?: Record<string, unknown> }) => {
        const updated = await rt.services.channels.reconnect(opts.workspace, id, opts.config ?? {});
        print(out, updated, [`channel ${updated.id} reconnected and enabled`]);
      }),
    );

  const key = admin.command('key').description('API keys');
  key
    .command('create')
    .requiredOption('--user <id|email>', "the key's owner")
    .option('--scopes <a,b>', 'scopes (default: all REST scopes, or all MCP scopes with --mcp)', list)
    .option('--channels <id,id>', 'limit the key to these channels', list)
    .option('--workspace <id>', 'limit the key to this workspace')
    .option('--name <name>', 'a label for the key')
    .option('--mcp', 'an MCP key (svc_mcp_…) instead of a REST key')
    .action(
      action(
        async (
          rt,
          out,
          opts: { user: string; scopes?: string[]; channels?: string[]; workspace?: string; name?: string; mcp?: boolean },
        ) => {
          const u = await rt.services.users.get(opts.user);
          const { key: created, secret } = await rt.services.apiKeys.create({
            userId: u.id,
            kind: opts.mcp ? 'mcp' : 'rest',
            ...(opts.name !== undefined && { name: opts.name }),
            ...(opts.scopes !== undefined && { scopes: opts.scopes }),
            channelIds: opts.channels ?? null,
            workspaceId: opts.workspace ?? null,
          });
          print(out, { ...created, secret }, [
            `key ${created.id} created with scopes ${created.scopes.join(', ')}`,
            `secret (shown once): ${secret}`,
          ]);
        },
      ),
    );
  key
    .command('list')
    .option('--user <id|email>', "only this user's keys")
    .description('keys with their scopes and state (never their secrets)')
    .action(
      action(async (rt, out, opts: { user?: string }) => {
        const userId = opts.user === undefined ? undefined : (await rt.services.users.get(opts.user)).id;
        printList(
          out,
          await rt.services.apiKeys.list(userId),
          (k) =>
            `${k.id}  ${k.kind}  user ${k.userId}  ${k.revokedAt ? 'revoked' : 'active'}  "${k.name}"  ${k.scopes.join(',')}${k.workspaceId ? `  workspace ${k.workspaceId}` : ''}${k.channelIds ? `  channels ${k.channelIds.join(',')}` : ''}`,
        );
      }),
    );
  key
    .command('rotate')
    .argument('<id>', 'key id')
    .action(
      action(async (rt, out, id: string) => {
        const { key: rotated, secret } = await rt.services.apiKeys.rotate(id);
        print(out, { ...rotated, secret }, [
          `key ${rotated.id} rotated; the old secret no longer works`,
          `new secret (shown once): ${secret}`,
        ]);
      }),
    );
  key
    .command('revoke')
    .argument('<id>', 'key id')
    .action(
      action(async (rt, out, id: string) => {
        const revoked = await rt.services.apiKeys.revoke(id);
        print(out, revoked, [`key ${revoked.id} revoked`]);
      }),
    );

  const plan = admin.command('plan').description('workspace plans and quotas');
  plan
    .command('set')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--name <name>', 'plan name')
    .option('--api-access <true|false>', 'whether the plan includes the API', booleanFlag)
    .option('--posts-per-month <n|unlimited>', 'posts per calendar month (UTC)', quota)
    .option('--channels <n|unlimited>', 'number of channels', quota)
    .action(
      action(
        async (
          rt,
          out,
          opts: {
            workspace: string;
            name?: string;
            apiAccess?: boolean;
            postsPerMonth?: number | 'unlimited';
            channels?: number | 'unlimited';
          },
        ) => {
          const ws = await rt.services.workspaces.setPlan(opts.workspace, {
            ...(opts.name !== undefined && { name: opts.name }),
            ...(opts.apiAccess !== undefined && { apiAccess: opts.apiAccess }),
            ...(opts.postsPerMonth !== undefined && { postsPerMonth: opts.postsPerMonth === 'unlimited' ? null : opts.postsPerMonth }),
            ...(opts.channels !== undefined && { channels: opts.channels === 'unlimited' ? null : opts.channels }),
          });
          print(out, ws, [`workspace ${ws.id} plan: ${JSON.stringify(ws.plan)}`]);
        },
      ),
    );

  const uploadLink = admin.command('upload-link').description('upload links (browser links that drop files into a media library)');
  uploadLink
    .command('expire')
    .argument('<id>', 'upload link id (from `herald upload-link create` or POST /upload-link)')
    .description(
      'end an upload link now, as its two hours would: its page then says it has expired and takes no more files (the files sent stay in the library)',
    )
    .action(
      action(async (rt, out, id: string) => {
        const link = await rt.services.uploadLinks.expire(id);
        print(out, link, [`upload link ${link.id} expired at ${link.expiresAt}`]);
      }),
    );

  const oauth = admin.command('oauth').description('the OAuth authorization server');
  oauth
    .command('rotate-keys')
    .description('a new signing key and cookie key, used from now on; the previous ones keep verifying until what they signed has expired')
    .action(
      action(async (rt, out) => {
        const rotated = await rt.services.oauth.rotateKeys();
        print(out, rotated, [
          `new signing key ${rotated.signingKeyId} and a new cookie key, used from now on (running processes switch within ${KEYS_CHECK_INTERVAL_MS / 1000} s)`,
          `kept to verify what they signed: ${rotated.signingKeys - 1} older signing key(s), ${rotated.cookieKeys - 1} older cookie key(s); dropped as expired: ${rotated.dropped.signing} signing, ${rotated.dropped.cookie} cookie`,
        ]);
      }),
    );

  return admin;
}
