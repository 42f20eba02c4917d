import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, type Channel, type ClientGroup, type Provider } from '../api.ts';
import { SettingsForm } from '../composer/settings-form.tsx';
import { mayManageChannels, type Viewer } from '../roles.ts';
import { Banner, type Message } from '../shared/banner.tsx';
import { initials, messageOf } from '../shared/format.ts';
import { type ConnectAnswer, ConnectForm } from './connect-form.tsx';
import { PostingSchedules } from './posting-schedules.tsx';

/** A channel's state in words: the list never relies on colour alone. */
function stateOf(channel: Channel): { label: string; tone: 'good' | 'warn' | 'bad' } {
  if (!channel.disabled) return { label: 'Active', tone: 'good' };
  if (channel.disabledReason === 'needs_reconnect') return { label: 'Needs reconnecting', tone: 'bad' };
  return { label: `Disabled${channel.disabledReason ? ` (${channel.disabledReason.replace(/_/g, ' ')})` : ''}`, tone: 'warn' };
}

/** The workspace's channels: state, connect, reconnect, rename, client group, preferred settings, delete. */
export default function ChannelsView({ viewer }: { viewer: Viewer }) {
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [deleted, setDeleted] = useState<Channel[]>([]);
  const [groups, setGroups] = useState<ClientGroup[]>([]);
  const [providers, setProviders] = useState<Provider[]>([]);
  const [editing, setEditing] = useState<string | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const canManage = mayManageChannels(viewer.role);

  const load = () => api('get', '/integrations').then(setChannels, (error: unknown) => setMessage({ text: messageOf(error), bad: true }));
  useEffect(() => {
    void load();
    api('get', '/groups').then(setGroups, () => setGroups([]));
    api('get', '/providers').then(setProviders, (error: unknown) => setMessage({ text: messageOf(error), bad: true }));
  }, []);
  const platformLabel = (id: string) => providers.find((p) => p.identifier === id)?.name ?? id;

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
          providers={providers}
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
  // The platform's settings schema and the channel's preferred settings, as the composer's settings form shows them.
  const [schema, setSchema] = useState<Record<string, unknown> | null>(null);
  const [preferred, setPreferred] = useState<Record<string, unknown>>({});
  const [changed, setChanged] = useState(false);
  useEffect(() => {
    api('get', '/integration-settings/{id}', { params: { id: channel.id } }).then(
      (settings) => {
        setSchema(settings.settings);
        setPreferred(settings.preferredSettings ?? {});
      },
      (error: unknown) => props.onError(messageOf(error)),
    );
  }, [channel.id]);
  async function save(event: Event) {
    event.preventDefault();
    const preferredSettings = Object.keys(preferred).length > 0 ? preferred : null;
    try {
      const saved = await api('patch', '/integrations/{id}', {
        params: { id: channel.id },
        body: { name: name.trim(), group: group || null, ...(changed && { preferredSettings }) },
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
      <fieldset class="preferred-settings">
        <legend>Preferred settings</legend>
        <p class="muted small">Used by posts that leave a setting out; the API checks them against the platform's settings.</p>
        {schema === null ? (
          <p class="muted">Loading the platform's settings…</p>
        ) : (
          <SettingsForm
            idPrefix={id('preferred')}
            schema={schema}
            values={preferred}
            onChange={(values) => {
              setPreferred(values);
              setChanged(true);
            }}
          />
        )}
      </fieldset>
      <button type="submit">Save</button>
    </form>
  );
}
