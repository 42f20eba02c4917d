import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import { UsageError } from '../errors.ts';
import type { Api } from '../http.ts';
import { fields, show, table } from '../output.ts';
import { act, examples, seg } from '../program.ts';
import { formatWhen } from '../time.ts';
import { TRIGGER_WORDING } from '../wording.ts';

type Channel = components['schemas']['Channel'];
type Group = components['schemas']['ClientGroup'];
type Settings = components['schemas']['ChannelSettings'];
type Schedule = components['schemas']['PostingSchedule'];
type Slot = components['schemas']['PostingSlot'];

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A `--slot` value: a day and a local time, e.g. `monday 09:00` or `mon 9:00`. */
function slotOf(value: string): Slot {
  const match = /^([a-z]+)[\s@]+(\d{1,2}):(\d{2})$/i.exec(value.trim());
  const day = match && DAYS.find((d) => d.startsWith(match[1]!.toLowerCase()) && match[1]!.length >= 3);
  if (!match || !day || Number(match[2]) > 23 || Number(match[3]) > 59)
    throw new UsageError(`--slot "${value}": expected a day and a 24-hour time, e.g. "monday 09:00".`);
  return { day: day as Slot['day'], time: `${match[2]!.padStart(2, '0')}:${match[3]}` };
}

/** A schedule for a person: its zone, where it comes from, and its slots day by day. */
function scheduleFields(channel: string, schedule: Schedule, next: string | undefined): string {
  const byDay = DAYS.map(
    (day) =>
      [
        day,
        schedule.slots
          .filter((slot) => slot.day === day)
          .map((slot) => slot.time)
          .join(' '),
      ] as [string, string],
  );
  return fields([
    ['channel', channel],
    [
      'schedule',
      `${schedule.source === 'channel' ? 'its own' : schedule.source === 'workspace' ? "the workspace's default" : 'the built-in default'} (${schedule.timeZone})`,
    ],
    ...byDay.filter(([, times]) => times),
    ...(schedule.slots.length === 0 ? [['slots', 'none'] as [string, string]] : []),
    ...(next ? [['next free slot', next] as [string, string]] : []),
  ]);
}

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
    'herald channels schedule ch_123 --slot "monday 09:00"',
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

  examples(
    channels
      .command('schedule <channel>')
      .description(
        "a channel's weekly posting schedule, which `posts create --queue` fills: show it, set its slots (--slot, repeat; --tz), or --clear it to use the workspace's default",
      )
      .option(
        '--slot <day time>',
        'a weekly slot, e.g. "monday 09:00" (repeat; replaces all the slots)',
        (v: string, prev: string[] = []) => [...prev, v],
      )
      .option('--tz <zone>', "the IANA time zone of the slots (default: the schedule's current one)")
      .option('--clear', "remove the channel's own schedule: it uses the workspace's default again")
      .action(
        act(async ({ out, opts, api }, value: string) => {
          const o = opts as { slot?: string[]; tz?: string; clear?: boolean };
          if (o.clear && (o.slot || o.tz)) throw new UsageError('--clear removes the schedule; leave out --slot and --tz.');
          if (o.tz && !o.slot) throw new UsageError('--tz goes with --slot: give the slots in that zone.');
          const channel = await oneChannel(api(), value);
          const path = `/integrations/${seg(channel.id)}/schedule`;
          let schedule: Schedule;
          if (o.clear) schedule = await api().request<Schedule>('DELETE', path);
          else if (o.slot) {
            const slots = o.slot.map(slotOf);
            const timeZone = o.tz ?? (await api().get<Schedule>(path)).timeZone;
            schedule = await api().request<Schedule>('PUT', path, { json: { timeZone, slots } });
          } else schedule = await api().get<Schedule>(path);
          const next = await api()
            .get<{ date: string }>(`/find-slot/${seg(channel.id)}`)
            .then((found) => formatWhen(found.date, undefined))
            .catch(() => undefined);
          show(out, schedule, () => scheduleFields(channel.name ? `${channel.name} (${channel.id})` : channel.id, schedule, next));
        }),
      ),
    [
      'herald channels schedule ch_123',
      'herald channels schedule @acme --slot "monday 09:00" --slot "thursday 17:30" --tz Europe/Paris',
      'herald channels schedule ch_123 --clear',
    ],
  );

  examples(
    channels
      .command('default-schedule')
      .description(
        "the workspace's default posting schedule, used by every channel without its own: show it, or set its slots (--slot, repeat; --tz; owners and admins)",
      )
      .option(
        '--slot <day time>',
        'a weekly slot, e.g. "monday 09:00" (repeat; replaces all the slots)',
        (v: string, prev: string[] = []) => [...prev, v],
      )
      .option('--tz <zone>', "the IANA time zone of the slots (default: the schedule's current one)")
      .action(
        act(async ({ out, opts, api }) => {
          const o = opts as { slot?: string[]; tz?: string };
          if (o.tz && !o.slot) throw new UsageError('--tz goes with --slot: give the slots in that zone.');
          let schedule: Schedule;
          if (o.slot) {
            const slots = o.slot.map(slotOf);
            const timeZone = o.tz ?? (await api().get<Schedule>('/schedule')).timeZone;
            schedule = await api().request<Schedule>('PUT', '/schedule', { json: { timeZone, slots } });
          } else schedule = await api().get<Schedule>('/schedule');
          show(out, schedule, () => scheduleFields('every channel without its own schedule', schedule, undefined));
        }),
      ),
    [
      'herald channels default-schedule',
      'herald channels default-schedule --slot "monday 09:00" --slot "friday 16:00" --tz America/New_York',
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
