import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, type Channel, type ClientGroup } from '../api.ts';
import { mayManageChannels, type Viewer } from '../roles.ts';
import { Banner, type Message } from '../shared/banner.tsx';
import { initials, messageOf } from '../shared/format.ts';
import { connectBody, PLATFORMS, platformLabel } from './platforms.ts';
import { PostingSchedules } from './posting-schedules.tsx';

/** A channel's state in words: the list never relies on colour alone. */
function stateOf(channel: Channel): { label: string; tone: 'good' | 'warn' | 'bad' } {
  if (!channel.disabled) return { label: 'Active', tone: 'good' };
  if (channel.disabledReason === 'needs_reconnect') return { label: 'Needs reconnecting', tone: 'bad' };
  return { label: `Disabled${channel.disabledReason ? ` (${channel.disabledReason.replace(/_/g, ' ')})` : ''}`, tone: 'warn' };
}

type ConnectAnswer = { url: string } | { integration: Channel; reconnected: boolean; secret?: string };

/** The workspace's channels: state, connect, reconnect, rename, client group, preferred settings, delete. */
export default function ChannelsView({ viewer }: { viewer: Viewer }) {
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [deleted, setDeleted] = useState<Channel[]>([]);
  const [groups, setGroups] = useState<ClientGroup[]>([]);
  const [editing, setEditing] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const canManage = mayManageChannels(viewer.role);

  const load = () => api('get', '/integrations').then(setChannels, (error: unknown) => setMessage({ text: messageOf(error), bad: true }));
  useEffect(() => {
    void load();
    api('get', '/groups').then(setGroups, () => setGroups([]));
  }, []);

  /** A browser sign-in opens the platform in a new window; Herald finishes the connection when it comes back. */
  function answered(result: ConnectAnswer, verb: string) {
    if ('url' in result) {
      window.open(result.url, '_blank', 'noopener');
      setMessage({ text: `Sign in on the platform in the new window, then reload this page to see the channel.`, bad: false });
      return;
    }
    setSecret(result.secret ?? null);
    setMessage({ text: `${result.integration.name} is ${result.reconnected ? 'reconnected' : verb}.`, bad: false });
    void load();
  }

  async function reconnect(channel: Channel) {
    try {
      answered(
        (await api('post', '/integrations/{id}/reconnect', { params: { id: channel.id }, body: {} })) as ConnectAnswer,
        'reconnected',
      );
    } catch (error) {
      setMessage({
        text:
          error instanceof ApiFailure && error.status === 400
            ? `${error.message} Connect it again below with new credentials: the same account keeps its posts.`
            : messageOf(error),
        bad: true,
      });
    }
  }

  async function remove(channel: Channel) {
    if (!window.confirm(`Delete the channel ${channel.name}? Its published history stays; connecting the same account again restores it.`))
      return;
    try {
      await api('delete', '/integrations/{id}', { params: { id: channel.id } });
    } catch (error) {
      if (!(error instanceof ApiFailure && error.code === 'channel_has_scheduled_posts')) {
        setMessage({ text: messageOf(error), bad: true });
        return;
      }
      if (!window.confirm(`${channel.name} has scheduled posts. Move them to draft and delete the channel?`)) return;
      try {
        await api('delete', '/integrations/{id}', { params: { id: channel.id }, query: { force: 'true' } });
      } catch (again) {
        setMessage({ text: messageOf(again), bad: true });
        return;
      }
    }
    setDeleted((d) => [...d, channel]);
    setMessage({ text: `${channel.name} was deleted.`, bad: false });
    void load();
  }

  return (
    <section class="channels-view" aria-labelledby="channels-title">
      <h1 id="channels-title">Channels</h1>
      {!canManage && <p class="muted">Your role ({viewer.role}) can see the channels; an owner or an admin connects and changes them.</p>}
      <Banner message={message} />
      {secret && (
        <div class="banner good">
          <p>The webhook's signing secret, shown this once: give it to the receiver.</p>
          <code class="link-url">{secret}</code>
        </div>
      )}
      {channels === null ? (
        <p class="muted">Loading the channels…</p>
      ) : channels.length === 0 && deleted.length === 0 ? (
        <p class="muted">No channel yet.{canManage ? ' Connect one below.' : ''}</p>
      ) : (
        <ul class="channel-list">
          {channels.map((channel) => {
            const state = stateOf(channel);
            return (
              <li class="channel-card" id={`channel-${channel.id}`}>
                <span class="avatar" aria-hidden="true">
                  {initials(channel.name)}
                </span>
                <div class="channel-text">
                  <p class="name">{channel.name}</p>
                  <p class="muted small">
                    {platformLabel(channel.identifier)}
                    {channel.profile ? ` · @${channel.profile}` : ''}
                    {channel.customer ? ` · ${channel.customer.name}` : ''}
                  </p>
                  <span class={`tag tone-${state.tone}`}>{state.label}</span>
                </div>
                {canManage && (
                  <div class="actions">
                    <button type="button" class="secondary" onClick={() => void reconnect(channel)}>
                      Reconnect
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-expanded={editing === channel.id}
                      onClick={() => setEditing(editing === channel.id ? null : channel.id)}
                    >
                      Edit
                    </button>
                    <button type="button" class="danger" onClick={() => void remove(channel)} aria-label={`Delete ${channel.name}`}>
                      Delete
                    </button>
                  </div>
                )}
                {editing === channel.id && (
                  <ChannelEditor
                    channel={channel}
                    groups={groups}
                    onDone={(text) => {
                      setEditing(null);
                      setMessage({ text, bad: false });
                      void load();
                    }}
                    onError={(text) => setMessage({ text, bad: true })}
                  />
                )}
              </li>
            );
          })}
          {deleted.map((channel) => (
            <li class="channel-card gone">
              <span class="avatar" aria-hidden="true">
                {initials(channel.name)}
              </span>
              <div class="channel-text">
                <p class="name">{channel.name}</p>
                <p class="muted small">{platformLabel(channel.identifier)}</p>
                <span class="tag tone-bad">Deleted: connecting the same account again restores it</span>
              </div>
            </li>
          ))}
        </ul>
      )}
      {canManage && (
        <ConnectForm
          groups={groups}
          onAnswer={(result) => answered(result, 'connected')}
          onError={(text) => setMessage({ text, bad: true })}
        />
      )}
      {channels && <PostingSchedules channels={channels} canManage={canManage} />}
    </section>
  );
}

function ChannelEditor(props: {
  channel: Channel;
  groups: ClientGroup[];
  onDone: (text: string) => void;
  onError: (text: string) => void;
}) {
  const { channel } = props;
  const [name, setName] = useState(channel.name);
  const [group, setGroup] = useState(channel.customer?.id ?? '');
  const [settings, setSettings] = useState('');
  async function save(event: Event) {
    event.preventDefault();
    let preferredSettings: Record<string, unknown> | null | undefined;
    if (settings.trim() === '-') preferredSettings = null;
    else if (settings.trim()) {
      try {
        preferredSettings = JSON.parse(settings) as Record<string, unknown>;
      } catch {
        props.onError('Preferred settings: write them as JSON, for example {"title": "…"}.');
        return;
      }
    }
    try {
      const saved = await api('patch', '/integrations/{id}', {
        params: { id: channel.id },
        body: { name: name.trim(), group: group || null, ...(preferredSettings !== undefined && { preferredSettings }) },
      });
      props.onDone(`${saved.name} is saved.`);
    } catch (error) {
      props.onError(messageOf(error));
    }
  }
  const id = (field: string) => `${field}-${channel.id}`;
  return (
    <form class="channel-editor" onSubmit={(e) => void save(e)}>
      <label for={id('name')}>Name</label>
      <input
        id={id('name')}
        type="text"
        value={name}
        required
        maxLength={200}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
      />
      <label for={id('group')}>Client group</label>
      <select id={id('group')} value={group} onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}>
        <option value="">No group</option>
        {props.groups.map((g) => (
          <option value={g.id}>{g.name}</option>
        ))}
      </select>
      <label for={id('settings')}>Preferred settings</label>
      <textarea
        id={id('settings')}
        rows={3}
        value={settings}
        placeholder='Left empty: unchanged. JSON such as {"title": "…"}; "-" clears them.'
        onInput={(e) => setSettings((e.target as HTMLTextAreaElement).value)}
      />
      <p class="muted small">Used by posts that leave a setting out; checked against the platform's settings.</p>
      <button type="submit">Save</button>
    </form>
  );
}

function ConnectForm(props: { groups: ClientGroup[]; onAnswer: (result: ConnectAnswer) => void; onError: (text: string) => void }) {
  const [platformId, setPlatformId] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const platform = PLATFORMS.find((p) => p.id === platformId);
  async function connect(event: Event) {
    event.preventDefault();
    if (!platform) return;
    setBusy(true);
    try {
      const body = {
        provider: platform.id,
        ...connectBody(platform, values),
        ...(values.name?.trim() && { name: values.name.trim() }),
        ...(values.group && { group: values.group }),
      };
      props.onAnswer((await api('post', '/integrations/connect', { body })) as ConnectAnswer);
      setValues({});
    } catch (error) {
      props.onError(messageOf(error));
    } finally {
      setBusy(false);
    }
  }
  const set = (name: string) => (e: Event) => setValues({ ...values, [name]: (e.target as HTMLInputElement).value });
  return (
    <form class="connect-form" onSubmit={(e) => void connect(e)}>
      <h2>Connect a channel</h2>
      <label for="connect-platform">Platform</label>
      <select id="connect-platform" value={platformId} onChange={(e) => setPlatformId((e.target as HTMLSelectElement).value)}>
        <option value="">Choose a platform</option>
        {PLATFORMS.map((p) => (
          <option value={p.id}>{p.label}</option>
        ))}
      </select>
      {platform && (
        <>
          {platform.signIn && <p class="muted small">You sign in on {platform.label} in a new window; it comes back to Herald.</p>}
          {platform.fields.map((field) => (
            <>
              <label for={`connect-${field.name}`}>
                {field.label}
                {field.optional ? ' (optional)' : ''}
              </label>
              <input
                id={`connect-${field.name}`}
                type={field.secret ? 'password' : 'text'}
                autocomplete="off"
                required={!field.optional}
                placeholder={field.placeholder}
                value={values[field.name] ?? ''}
                onInput={set(field.name)}
              />
            </>
          ))}
          <label for="connect-name">Name (optional: the account's own name otherwise)</label>
          <input id="connect-name" type="text" value={values.name ?? ''} maxLength={200} onInput={set('name')} />
          {props.groups.length > 0 && (
            <>
              <label for="connect-group">Client group</label>
              <select id="connect-group" value={values.group ?? ''} onChange={set('group')}>
                <option value="">No group</option>
                {props.groups.map((g) => (
                  <option value={g.id}>{g.name}</option>
                ))}
              </select>
            </>
          )}
          <button type="submit" disabled={busy}>
            {platform.signIn ? `Sign in with ${platform.label}` : 'Connect'}
          </button>
        </>
      )}
    </form>
  );
}
