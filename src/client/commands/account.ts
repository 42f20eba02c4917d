import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import {
  credentialsPath,
  DEFAULT_PROFILE,
  forgetCredential,
  normalizeUrl,
  resolveSession,
  storeCredential,
  storedCredential,
} from '../credentials.ts';
import { ApiRefusal, UsageError } from '../errors.ts';
import { Api } from '../http.ts';
import { deviceLogin, revokeLogin } from '../oauth.ts';
import { fields, notice, show, table } from '../output.ts';
import { act, examples } from '../program.ts';
import { readSecret } from '../session.ts';
import { formatWhen } from '../time.ts';
import { stdio } from '../stdio.ts';

type Workspace = components['schemas']['Workspace'];
type Status = components['schemas']['Status'];
type Check = components['schemas']['ConnectionCheck'];

const workspaceTable = (list: Workspace[]) =>
  table(
    ['ID', 'NAME', 'ROLE', 'CURRENT'],
    list.map((w) => [w.id, w.name, w.role, w.current ? 'yes' : '']),
    'No workspaces.',
  );

export function register(program: Command): void {
  examples(
    program
      .command('login')
      .description(
        'log in to an instance: in a browser by default (OAuth device flow), or with an API key (--key, from a prompt or standard input, never from the command line)',
      )
      .option('--key', 'log in with an API key (typed at a prompt, or piped on standard input)')
      .option('--url <url>', "the instance, e.g. https://herald.example.com (HERALD_URL, or the profile's)")
      .action(
        act(async ({ out, opts }) => {
          const profile = opts.profile ?? DEFAULT_PROFILE;
          const given = (opts.url as string | undefined) || stdio().env.HERALD_URL || storedCredential(profile)?.url;
          if (!given) throw new UsageError('Which instance? Give its address with --url <url> (or HERALD_URL).');
          const url = normalizeUrl(given);
          const workspace = opts.workspace;
          const credential = opts.key
            ? { url, kind: 'apiKey' as const, key: await readSecret(`API key for ${url}: `), ...(workspace && { workspace }) }
            : await deviceLogin(url, notice, { workspace });
          // The credential is stored only once the instance has accepted it.
          const workspaces = await new Api(credential, notice).get<Workspace[]>('/workspaces');
          if (workspace && !workspaces.some((w) => w.id === workspace))
            throw new UsageError(`This login has no workspace ${workspace}: run \`herald workspaces\` to see its workspaces.`);
          const file = storeCredential(profile, credential);
          const what = credential.kind === 'oauth' ? 'The access token' : 'The key';
          show(out, { url, profile, workspaces, credentials: file, kind: credential.kind }, () =>
            [
              `Logged in to ${url} (profile ${profile}). ${what} is stored in ${file}, readable by you only.`,
              workspaces.length > 1 && !workspace
                ? `This key reaches ${workspaces.length} workspaces: add --workspace <id> to a command, or log in again with --workspace <id>.`
                : '',
              workspaceTable(workspaces),
            ].filter(Boolean),
          );
        }),
      ),
    [
      'herald login --url https://herald.example.com',
      'herald login --key --url https://herald.example.com',
      'herald login --key --url https://herald.example.com < key.txt',
      'herald login --key --profile work --workspace ws_123',
    ],
  );

  examples(
    program
      .command('logout')
      .description(
        'forget the stored credential of a profile for an instance (by default the one it uses); a browser login (OAuth) is also revoked at the instance (an API key stays valid: revoke it in the developer settings)',
      )
      .option('--url <url>', "the instance to log out of (HERALD_URL, or the profile's)")
      .action(
        act(async ({ out, opts }) => {
          const profile = opts.profile ?? DEFAULT_PROFILE;
          const url = (opts.url as string | undefined) || stdio().env.HERALD_URL || undefined;
          const stored = storedCredential(profile, stdio().env, url);
          const revoked = stored?.kind === 'oauth' ? await revokeLogin(stored) : false;
          const forgotten = stored && forgetCredential(profile, stdio().env, stored.url);
          const after =
            forgotten?.kind === 'oauth'
              ? revoked
                ? ' Its access was revoked at the instance.'
                : ' The instance could not be reached to revoke its access: revoke it under “Apps you allowed” in your account.'
              : ' The API key itself still works until it is revoked in the developer settings.';
          show(out, { profile, loggedOut: Boolean(forgotten), revoked }, () =>
            forgotten
              ? `Logged out of ${forgotten.url} (profile ${profile}).${after}`
              : `Profile ${profile} was not logged in${url ? ` to ${normalizeUrl(url)}` : ''}.`,
          );
        }),
      ),
    ['herald logout', 'herald logout --profile work', 'herald logout --url https://staging.herald.example.com'],
  );

  examples(
    program
      .command('whoami')
      .description('the instance, the credential and the workspaces it acts on')
      .action(
        act(async ({ out, opts, api }) => {
          const client = api();
          const session = resolveSession(opts);
          // A key that reaches several workspaces has none chosen without --workspace: /is-connected says 403.
          const check = client.get<Check>('/is-connected').catch((error: unknown) => {
            if (error instanceof ApiRefusal && error.status === 403) return null;
            throw error;
          });
          const [status, workspaces, connection] = await Promise.all([
            client.get<Status>('/status'),
            client.get<Workspace[]>('/workspaces'),
            check,
          ]);
          const current = connection?.workspace ? workspaces.find((w) => w.id === connection.workspace!.id) : undefined;
          const value = {
            url: session.url,
            instance: status.name,
            profile: session.profile,
            credential: session.source,
            key: `${session.key.slice(0, 8)}…`,
            workspace: current ?? null,
            role: connection?.role ?? null,
            scopes: connection?.scopes ?? null,
            workspaces,
          };
          show(out, value, () => [
            fields([
              ['instance', `${status.name} at ${session.url}`],
              ['profile', session.source === 'environment' ? 'HERALD_API_KEY (environment)' : `${session.profile} (${credentialsPath()})`],
              ['key', value.key],
              [
                'workspace',
                current
                  ? `${current.name} (${current.id}), role ${current.role}`
                  : connection?.connected === false
                    ? 'none: the key reaches no workspace'
                    : `none chosen among ${workspaces.length}: use --workspace <id>`,
              ],
              ['scopes', connection?.scopes ? connection.scopes.join(', ') || 'none' : '-'],
            ]),
            '',
            workspaceTable(workspaces),
          ]);
        }),
      ),
    ['herald whoami', 'herald whoami --profile work --json'],
  );

  examples(
    program
      .command('status')
      .description("the instance's status document: name, version, clock, documentation and scopes")
      .action(
        act(async ({ out, opts, api }) => {
          const status = await api().get<Status>('/status');
          show(out, status, () =>
            fields([
              ['name', status.name],
              ['status', status.status],
              ['version', status.version],
              ['time', `${status.time} (${formatWhen(status.time, opts.tz)})`],
              ['developers', status.documentation.developers],
              ['openapi', status.documentation.openapi],
              ['mcp', status.mcp.endpoint],
              ['scopes', status.scopes.rest.join(', ')],
            ]),
          );
        }),
      ),
    ['herald status', 'herald status --json'],
  );

  examples(
    program
      .command('workspaces')
      .description('the workspaces the credential reaches, with your role in each')
      .action(
        act(async ({ out, api }) => {
          const list = await api().get<Workspace[]>('/workspaces');
          show(out, list, () => workspaceTable(list));
        }),
      ),
    ['herald workspaces', 'herald workspaces --json'],
  );
}
