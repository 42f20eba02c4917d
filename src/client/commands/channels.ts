import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import { UsageError } from '../errors.ts';
import type { Api } from '../http.ts';
import { fields, show, table } from '../output.ts';
import { act, examples, seg } from '../program.ts';
import { TRIGGER_WORDING } from '../wording.ts';

type Channel = components['schemas']['Channel'];
type Group = components['schemas']['ClientGroup'];
type Settings = components['schemas']['ChannelSettings'];

export function channelTable(list: Channel[]): string {
  return table(
    ['ID', 'NAME', 'PLATFORM', 'HANDLE', 'GROUP', 'STATE'],
    list.map((c) => [
      c.id,
      c.name,
      c.identifier,
      c.profile,
      c.customer?.name,
      c.disabled ? `disabled${c.disabledReason ? `: ${c.disabledReason}` : ''}` : 'active',
    ]),
    'No channels.',
  );
}

export function register(program: Command): void {
  const channels = examples(program.command('channels').description('the connected channels (accounts on platforms)'), [
    'herald channels list',
    'herald channels settings ch_123',
    'herald channels settings @acme',
    'herald channels trigger ch_123 ping',
  ]);
  examples(
    channels
      .command('list')
      .description('list the channels the credential may use')
      .option('--group <id>', 'only the channels of this client group')
      .action(
        act(async ({ out, opts, api }) => {
          const list = await api().get<Channel[]>('/integrations', { group: opts.group as string | undefined });
          show(out, list, () => channelTable(list));
        }),
      ),
    ['herald channels list', 'herald channels list --group grp_123 --json'],
  );
  examples(
    channels
      .command('settings <channel>')
      .description("a channel's settings schema: text limit, media rules, platform settings and tools; the channel by ID, name or @handle")
      .action(
        act(async ({ out, api }, value: string) => {
          const channel = await oneChannel(api(), value);
          const s = await api().get<Settings>(`/integration-settings/${seg(channel.id)}`);
          show(out, s, () => [
            fields([
              ['channel', channel.name ? `${channel.name} (${s.integration})` : s.integration],
              ['platform', `${s.name} (${s.identifier})`],
              ['text limit', `${s.textLimit.max} ${s.textLimit.unit}`],
              [
                'media',
                `up to ${s.media.maxItems} (${s.media.mimeTypes.join(', ') || 'none'}), ${s.media.required ? 'required' : 'optional'}`,
              ],
              ['settings', Object.keys((s.settings as { properties?: object }).properties ?? s.settings).join(', ') || 'none'],
              ['tools', s.tools.map((t) => t.name).join(', ') || 'none'],
            ]),
            ...s.tools.map((t) => `  ${t.name}: ${t.description}`),
          ]);
        }),
      ),
    ['herald channels settings ch_123', 'herald channels settings "News Desk"', 'herald channels settings @acme --json'],
  );
  examples(
    channels
      .command('trigger <channel> <tool>')
      .description(
        "run one of a channel's tools (a lookup on the platform); see `channels settings` for the tools; the channel by ID, name or @handle",
      )
      .option('--data <json>', "the tool's parameters as a JSON object", '{}')
      .action(
        act(async ({ out, opts, api }, value: string, tool: string) => {
          let data: unknown;
          try {
            data = JSON.parse(opts.data as string);
          } catch {
            throw new UsageError(`--data is not valid JSON: ${opts.data as string}`);
          }
          if (!data || typeof data !== 'object' || Array.isArray(data))
            throw new UsageError('--data must be a JSON object, e.g. \'{"query":"cats"}\'.');
          const { id } = await oneChannel(api(), value);
          const result = await api().request<unknown>('POST', `/integration-trigger/${seg(id)}`, { json: { methodName: tool, data } });
          show(out, result, () => JSON.stringify(result, null, 2));
        }, TRIGGER_WORDING),
      ),
    [
      'herald channels trigger ch_123 lists',
      'herald channels trigger @acme ping',
      'herald channels trigger ch_123 search --data \'{"query":"cats"}\'',
    ],
  );

  const groups = examples(program.command('groups').description('the client groups channels are filed under'), ['herald groups list']);
  examples(
    groups
      .command('list')
      .description('list the client groups')
      .action(
        act(async ({ out, api }) => {
          const list = await api().get<Group[]>('/groups');
          show(out, list, () =>
            table(
              ['ID', 'NAME'],
              list.map((g) => [g.id, g.name]),
              'No client groups.',
            ),
          );
        }),
      ),
    ['herald groups list', 'herald groups list --json'],
  );
}

/** A channel named on the command line; `name` and `identifier` are unknown when the credential may not list channels. */
export type NamedChannel = { id: string; name?: string; identifier?: string };

/**
 * The channels for `--channel` values or a `<channel>` argument, each an ID, a name or a handle.
 * Without `channels:read` the values are sent as they are, and the API says which it does not know.
 */
export async function resolveChannels(list: () => Promise<Channel[]>, values: string[]): Promise<NamedChannel[]> {
  const channels = await readable(list);
  if (!channels) return values.map((id) => ({ id }));
  return values.map((value) => {
    const v = value.replace(/^@/, '').toLowerCase();
    const found =
      channels.find((c) => c.id === value) ?? channels.filter((c) => c.name.toLowerCase() === v || c.profile.toLowerCase() === v);
    const named = (c: Channel): NamedChannel => ({ id: c.id, name: c.name, identifier: c.identifier });
    if (!Array.isArray(found)) return named(found);
    if (found.length === 1) return named(found[0]!);
    if (found.length > 1)
      throw new UsageError(`"${value}" names ${found.length} channels (${found.map((c) => c.id).join(', ')}): give the channel's ID.`);
    throw new UsageError(`Unknown channel "${value}": no channel has this ID, name or handle. Run \`herald channels list\` to see them.`);
  });
}

/** The channel a `<channel>` argument names (an ID, a name or a handle). */
export async function oneChannel(api: Api, value: string): Promise<NamedChannel> {
  const [channel] = await resolveChannels(() => api.get<Channel[]>('/integrations'), [value]);
  return channel!;
}

/** Channel names by ID, for showing posts; empty when the credential may not list channels. */
export async function channelNames(api: Api): Promise<Map<string, string>> {
  return new Map((await readable(() => api.get<Channel[]>('/integrations')))?.map((c) => [c.id, c.name]));
}

/** The channels, or `undefined` when the credential may not list them (no `channels:read`). */
async function readable(list: () => Promise<Channel[]>): Promise<Channel[] | undefined> {
  try {
    return await list();
  } catch (error) {
    if ((error as { status?: number }).status === 403) return undefined;
    throw error;
  }
}
