import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { components } from '../../client/api-types.ts';
import { api, ApiFailure, type Channel, type Post } from '../api.ts';
import { follow, navigate, type Route } from '../navigate.ts';
import { mayCompose, mayPublish, type Viewer } from '../roles.ts';
import { chosenZone } from '../states.ts';
import { formatInstant, instantToZoned, zonedToInstant } from '../zone-time.ts';
import { countText, type ChannelSettings } from './counting.ts';
import { MediaPicker, type Attached } from './media-picker.tsx';
import { plainTextOf } from './platform-text.ts';
import { Avatar, Preview } from './preview.tsx';
import { RichText } from './rich-text.tsx';
import { useServerCounts } from './server-counts.ts';
import { altProblems, altRule, altSetting, requiredSettings, SettingsForm } from './settings-form.tsx';

type PostItem = components['schemas']['PostItemInput'];
type PostValue = components['schemas']['PostValueInput'];
type Missing = components['schemas']['MissingCheck']['missing'];
type Action = 'draft' | 'schedule' | 'now' | 'queue' | 'repeat';
/** A comment; `key` keeps its editor with it when one before it is removed. */
type Comment = { key: number; text: string; delay: number };
let commentKey = 0;
type Frequency = 'daily' | 'weekly' | 'monthly';
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

function randomKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function nextHour(): Date {
  const d = new Date(Date.now() + 60 * 60_000);
  d.setMinutes(0, 0, 0);
  return d;
}

/** A file of a stored post, known only by its path: its name is the path's last segment. */
function attachedOf(image: { id?: string; path: string }, alt: string): Attached {
  const name = decodeURIComponent(image.path.split('/').pop() ?? image.path);
  return { id: image.id ?? image.path, path: image.path, name, type: /\.mp4$/i.test(name) ? 'video' : 'image', alt };
}

const DONE: Record<Action, string> = {
  draft: 'Saved as a draft',
  schedule: 'Scheduled',
  now: 'Sent for publishing now',
  queue: 'Added to the queue',
  repeat: 'Repeating',
};

/**
 * The composer: one text for the chosen channels (with a variant per channel), previews and
 * counters per platform, media with alt text, comments with delays, each channel's settings,
 * the readiness check before anything is scheduled, and submits that a retry never doubles
 * (an idempotency key per distinct submission).
 */
export default function Composer({ viewer, route }: { viewer: Viewer; route: Route }) {
  const editing = route.view === 'edit' ? route.id : null;
  const zone = chosenZone();
  const [channels, setChannels] = useState<Channel[]>([]);
  const [infos, setInfos] = useState<Record<string, ChannelSettings>>({});
  const [selected, setSelected] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [variants, setVariants] = useState<Record<string, string>>({});
  const [media, setMedia] = useState<Attached[]>([]);
  const [comments, setComments] = useState<Comment[]>([]);
  const [settings, setSettings] = useState<Record<string, Record<string, unknown>>>({});
  const [when, setWhen] = useState(() => instantToZoned(route.view === 'compose' && route.date ? new Date(route.date) : nextHour(), zone));
  const [frequency, setFrequency] = useState<Frequency>('weekly');
  const [count, setCount] = useState('');
  const [original, setOriginal] = useState<Post | null>(null);
  const [group, setGroup] = useState<string | null>(null);
  const [created, setCreated] = useState<Array<{ postId: string; integration: string }>>([]);
  const [missing, setMissing] = useState<Array<{ channel: string; items: Missing }> | null>(null);
  const [busy, setBusy] = useState<Action | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const keys = useRef(new Map<string, string>());
  const channelsById = useMemo(() => new Map(channels.map((c) => [c.id, c])), [channels]);
  const publisher = mayPublish(viewer.role);

  useEffect(() => {
    api('get', '/integrations').then(setChannels, (error: unknown) => setLoadError((error as Error).message));
    if (!editing) return;
    api('get', '/posts/{id}', { params: { id: editing } }).then(
      (post) => {
        const { __type: _type, alt, ...rest } = post.settings as Record<string, unknown>;
        // Alt text is kept per file (by its URL or id), or as one text for the first image.
        const alts = (typeof alt === 'string' ? {} : (alt ?? {})) as Record<string, string>;
        const firstImage = (post.value[0]?.image ?? [])[0]?.path;
        if (typeof alt === 'string' && firstImage) alts[firstImage] = alt;
        setOriginal(post);
        setSelected([post.integration.id]);
        setText(post.value[0]?.content ?? post.content);
        setMedia((post.value[0]?.image ?? []).map((image) => attachedOf(image, alts[image.path] ?? alts[image.id ?? ''] ?? '')));
        setComments(post.value.slice(1).map((c) => ({ key: ++commentKey, text: c.content, delay: c.delay })));
        setSettings({ [post.integration.id]: rest });
        setWhen(instantToZoned(new Date(post.publishDate), zone));
        setGroup(post.group);
        setCreated([{ postId: post.id, integration: post.integration.id }]);
      },
      (error: unknown) => setLoadError((error as Error).message),
    );
  }, [editing]);

  // Each chosen channel's limits and settings schema, read once.
  useEffect(() => {
    for (const id of selected) {
      if (infos[id]) continue;
      api('get', '/integration-settings/{id}', { params: { id } }).then(
        (info) => setInfos((all) => ({ ...all, [id]: info })),
        (error: unknown) => setMessage({ text: `${channelsById.get(id)?.name ?? id}: ${(error as Error).message}`, bad: true }),
      );
    }
  }, [selected.join(',')]);

  // Each channel's count as its platform counts it, from the server once the writer pauses.
  const exact = useServerCounts(
    selected.map((id) => ({
      channel: id,
      value: [variants[id] ?? text, ...comments.filter((c) => plainTextOf(c.text)).map((c) => c.text)],
      settings: settings[id] ?? {},
    })),
  );

  if (!mayCompose(viewer.role))
    return (
      <section>
        <h1>New post</h1>
        <p class="banner bad">
          Your role ({viewer.role}) can read posts but not write them. Ask an owner of the workspace for another role.
        </p>
      </section>
    );
  if (loadError) return <p class="banner bad">The composer could not be opened: {loadError}</p>;

  const textFor = (id: string) => variants[id] ?? text;
  /** The text as the platforms that take plain text get it (what the counters count and the previews show). */
  const plainFor = (id: string) => plainTextOf(textFor(id));
  const realComments = comments.filter((c) => plainTextOf(c.text));
  const altChannels = selected.filter((id) => altRule(infos[id]?.settings));

  /** What this browser can already tell is missing, channel by channel (the server's check follows on submit). */
  const problems: Array<{ channel: string; reason: string }> = [];
  if (selected.length === 0) problems.push({ channel: '', reason: 'Choose at least one channel.' });
  for (const id of selected) {
    const channel = channelsById.get(id);
    const info = infos[id];
    const name = channel?.name ?? id;
    if (channel?.disabled) problems.push({ channel: name, reason: 'The channel needs reconnecting before it can publish.' });
    if (!info) continue;
    const plain = plainFor(id);
    // The server's count once it has answered for this text; this browser's estimate until then.
    const estimate = countText(plain, info.textLimit.unit);
    const [post, ...commentCounts] = exact[id] ?? [{ length: estimate, max: info.textLimit.max, over: estimate > info.textLimit.max }];
    if (post?.over) problems.push({ channel: name, reason: `The text is ${post.length - post.max} over the limit of ${post.max}.` });
    commentCounts.forEach((c, i) => {
      if (c.over) problems.push({ channel: name, reason: `Comment ${i + 1} is ${c.length - c.max} over the limit of ${c.max}.` });
    });
    if (!plain && media.length === 0) problems.push({ channel: name, reason: 'There is no text and no media.' });
    const alt = altRule(info.settings);
    if (alt) for (const reason of altProblems(alt, media)) problems.push({ channel: name, reason });
    if (media.length > info.media.maxItems) problems.push({ channel: name, reason: `At most ${info.media.maxItems} files per post.` });
    if (info.media.required && media.length === 0) problems.push({ channel: name, reason: 'This platform needs an image or a video.' });
    for (const file of media)
      if (file.mimeType && !info.media.mimeTypes.includes(file.mimeType))
        problems.push({ channel: name, reason: `${file.name}: this platform does not take ${file.mimeType} files.` });
    for (const setting of requiredSettings(info.settings))
      if (settings[id]?.[setting] === undefined && info.preferredSettings?.[setting] === undefined)
        problems.push({ channel: name, reason: `The setting "${setting}" is required.` });
  }

  function items(): PostItem[] {
    return selected.map((id) => {
      const rule = altRule(infos[id]?.settings);
      const own = { ...settings[id] };
      // Alt text goes only to the platforms whose settings take it, in the shape each takes.
      const alt = rule ? altSetting(rule, media) : undefined;
      if (alt !== undefined) own.alt = alt;
      const value: PostValue[] = [
        { content: textFor(id), image: media.map((m) => ({ path: m.path })) },
        ...realComments.map((c) => ({ content: c.text, image: [], delay: c.delay })),
      ];
      return { integration: { id }, value, settings: { __type: channelsById.get(id)?.identifier ?? '', ...own } };
    });
  }

  /** The same request sent again (a double click, a retry after a lost answer) carries the same key; another request a new one. */
  function keyFor(request: unknown): string {
    const body = JSON.stringify(request);
    let key = keys.current.get(body);
    if (!key) keys.current.set(body, (key = randomKey()));
    return key;
  }

  async function readiness(posts: Array<{ postId: string; integration: string }>) {
    const checks = await Promise.all(posts.map((p) => api('get', '/posts/{id}/missing', { params: { id: p.postId } })));
    const found = checks
      .map((check, i) => ({ channel: channelsById.get(posts[i]!.integration)?.name ?? posts[i]!.integration, items: check.missing }))
      .filter((c) => c.items.length > 0);
    setMissing(found);
    return found.length === 0;
  }

  /** Saves the composition as a draft (creating it the first time, in place after that) and answers its posts. */
  async function saveDraft(date: string): Promise<{ posts: Array<{ postId: string; integration: string }>; group: string }> {
    if (editing) {
      const body = editBody('draft', date);
      await api('patch', '/posts/{id}', {
        params: { id: editing },
        body,
        headers: { 'idempotency-key': keyFor(['patch', editing, body]) },
      });
      return { posts: created, group: group ?? '' };
    }
    const body = { type: 'draft' as const, date, shortLink: false, tags: [], posts: items(), ...(group && { group }) };
    const answer = await api('post', '/posts', { body, headers: { 'idempotency-key': keyFor(body) } });
    setGroup(answer[0]!.group);
    setCreated(answer);
    return { posts: answer, group: answer[0]!.group };
  }

  function editBody(type: 'draft' | 'schedule' | 'now', date: string) {
    const [item] = items();
    const next = { ...item!.settings };
    // Settings the post had and the form no longer holds are removed (null), as PATCH merges key by key.
    for (const key of Object.keys(original?.settings ?? {})) if (!(key in next)) next[key] = null;
    return { type, date, value: item!.value, settings: next };
  }

  async function submit(action: Action) {
    if (busy) return;
    setConfirming(false);
    setBusy(action);
    setMessage(null);
    try {
      const date = action === 'now' ? new Date().toISOString() : zonedToInstant(when, zone).toISOString();
      if (action === 'repeat') {
        const start = new Date(`${when}:00Z`);
        const repeat = {
          frequency,
          timeZone: zone,
          start: when,
          ...(frequency === 'weekly' && { days: [WEEKDAYS[start.getUTCDay()]!] }),
          ...(count && { count: Number(count) }),
        };
        const body = { repeat, posts: items(), tags: [], shortLink: false };
        // Pressed again (a lost answer, a double click), the same series is answered, not a second one.
        const series = (await api('post', '/series', { body, headers: { 'idempotency-key': keyFor(['series', body]) } })) as unknown as {
          id: string;
          nextOccurrence: string | null;
        };
        setMessage({
          text: `${DONE.repeat}: the next one goes out ${series.nextOccurrence ? formatInstant(series.nextOccurrence, zone) : 'never (the rule has ended)'}.`,
          bad: false,
        });
        return;
      }
      const { posts, group: saved } = await saveDraft(date);
      if (action === 'draft') {
        setMessage({ text: `${DONE.draft}.`, bad: false });
        await readiness(posts);
        return;
      }
      // Nothing is scheduled or published before the server's own readiness check says it is ready.
      if (!(await readiness(posts))) {
        setMessage({ text: 'Saved as a draft, not scheduled: fix what the readiness check lists, then try again.', bad: true });
        return;
      }
      if (editing) {
        const body = editBody(action === 'queue' ? 'schedule' : action, date);
        await api('patch', '/posts/{id}', {
          params: { id: editing },
          body: { type: body.type, date },
          headers: { 'idempotency-key': keyFor(['go', editing, action, date]) },
        });
      } else {
        const body = { type: action, date, shortLink: false, tags: [], posts: items(), group: saved };
        await api('post', '/posts', {
          body: action === 'queue' ? { ...body, date: undefined } : body,
          headers: { 'idempotency-key': keyFor(body) },
        });
      }
      setMessage({ text: `${DONE[action]}.`, bad: false });
      if (posts.length === 1) navigate(`/app/posts/${encodeURIComponent(posts[0]!.postId)}`);
    } catch (error) {
      const text =
        error instanceof ApiFailure
          ? error.status === 0
            ? error.message
            : `${error.message}${error.status === 403 ? ' (your role may not do this)' : ''}`
          : 'The server could not be reached. Check the connection and press the same button again: it will not be sent twice.';
      setMessage({ text, bad: true });
    } finally {
      setBusy(null);
    }
  }

  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const blocked = problems.length > 0;
  const canSchedule = !original || ['DRAFT', 'QUEUE', 'AWAITING_APPROVAL', 'ERROR'].includes(original.state);

  return (
    <section class="composer" aria-labelledby="composer-title">
      <div class="view-head">
        <h1 id="composer-title">{editing ? 'Edit the post' : 'New post'}</h1>
        <a href={editing ? `/app/posts/${encodeURIComponent(editing)}` : '/app'} onClick={follow}>
          {editing ? 'Back to the post' : 'Back to the calendar'}
        </a>
      </div>
      {original && !canSchedule && <p class="banner bad">This post is {original.state.toLowerCase()}: it can no longer be edited.</p>}
      <div class="composer-grid">
        <div class="composer-form">
          <fieldset>
            <legend>Channels</legend>
            {channels.length === 0 && <p class="muted">No channel yet. Connect one first (Channels), then come back.</p>}
            <ul class="channel-picks">
              {channels.map((c) => (
                <li>
                  <input
                    type="checkbox"
                    id={`pick-${c.id}`}
                    checked={selected.includes(c.id)}
                    disabled={Boolean(editing)}
                    onChange={() => toggle(c.id)}
                  />
                  <label for={`pick-${c.id}`}>
                    <Avatar channel={c} />
                    <span class="who">
                      <span>{c.name}</span>
                      <span class="muted">
                        {c.identifier}
                        {c.disabled && ' · needs reconnecting'}
                      </span>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>

          {/* The editors take their text when they open: a post read for editing opens them again. */}
          <RichText key={`text-${original?.id ?? ''}`} id="compose-text" label="Text" initial={text} onChange={setText} tall />
          {selected.length > 1 &&
            selected.map((id) => {
              const channel = channelsById.get(id);
              if (!channel) return null;
              const own = variants[id] !== undefined;
              return (
                <div class="variant" key={id}>
                  <div class="check">
                    <input
                      type="checkbox"
                      id={`variant-${id}`}
                      checked={own}
                      onChange={() =>
                        setVariants((v) => {
                          const next = { ...v };
                          if (own) delete next[id];
                          else next[id] = text;
                          return next;
                        })
                      }
                    />
                    <label for={`variant-${id}`}>Other text for {channel.name}</label>
                  </div>
                  {own && (
                    <RichText
                      id={`variant-text-${id}`}
                      label={`Text for ${channel.name}`}
                      hideLabel
                      initial={variants[id] ?? ''}
                      onChange={(html) => setVariants((v) => ({ ...v, [id]: html }))}
                    />
                  )}
                </div>
              );
            })}

          <MediaPicker
            media={media}
            onChange={setMedia}
            altFor={altChannels.map((id) => channelsById.get(id)?.name ?? id)}
            altNotFor={selected.filter((id) => infos[id] && !altChannels.includes(id)).map((id) => channelsById.get(id)?.name ?? id)}
            altMax={Math.min(...altChannels.map((id) => altRule(infos[id]?.settings)?.max ?? Infinity))}
          />

          <fieldset>
            <legend>Comments</legend>
            <p class="muted">Published under the post, in order, each a number of minutes after the one before.</p>
            {comments.map((c, i) => (
              <div class="comment-row" key={c.key}>
                <RichText
                  id={`comment-${i}`}
                  label={`Comment ${i + 1}`}
                  initial={c.text}
                  onChange={(html) => setComments((all) => all.map((x, j) => (j === i ? { ...x, text: html } : x)))}
                />
                <div class="inline-fields">
                  <label for={`delay-${i}`}>Minutes after</label>
                  <input
                    id={`delay-${i}`}
                    type="number"
                    min={0}
                    max={10080}
                    value={c.delay}
                    onInput={(e) =>
                      setComments((all) =>
                        all.map((x, j) => (j === i ? { ...x, delay: Math.max(0, Number((e.target as HTMLInputElement).value) || 0) } : x)),
                      )
                    }
                  />
                  <button type="button" class="secondary" onClick={() => setComments((all) => all.filter((_, j) => j !== i))}>
                    Remove comment {i + 1}
                  </button>
                </div>
              </div>
            ))}
            <button
              type="button"
              class="secondary"
              onClick={() => setComments((all) => [...all, { key: ++commentKey, text: '', delay: 0 }])}
            >
              Add a comment
            </button>
          </fieldset>

          {selected.map((id) => {
            const channel = channelsById.get(id);
            const info = infos[id];
            if (!channel || !info) return null;
            return (
              <details class="channel-settings">
                <summary>Settings for {channel.name}</summary>
                <SettingsForm
                  idPrefix={`settings-${id}`}
                  schema={info.settings}
                  values={settings[id] ?? {}}
                  onChange={(values) => setSettings((all) => ({ ...all, [id]: values }))}
                />
              </details>
            );
          })}

          <fieldset>
            <legend>When</legend>
            <label for="compose-when">Date and time ({zone})</label>
            <input id="compose-when" type="datetime-local" value={when} onInput={(e) => setWhen((e.target as HTMLInputElement).value)} />
            {!editing && publisher && (
              <div class="inline-fields">
                <label for="repeat-frequency">With Repeat: how often</label>
                <select
                  id="repeat-frequency"
                  value={frequency}
                  onChange={(e) => setFrequency((e.target as HTMLSelectElement).value as Frequency)}
                >
                  <option value="daily">Every day</option>
                  <option value="weekly">Every week</option>
                  <option value="monthly">Every month</option>
                </select>
                <label for="repeat-count">How many times (empty: until deleted)</label>
                <input
                  id="repeat-count"
                  type="number"
                  min={1}
                  value={count}
                  onInput={(e) => setCount((e.target as HTMLInputElement).value)}
                />
              </div>
            )}
          </fieldset>

          <section class="readiness" aria-labelledby="readiness-title">
            <h2 id="readiness-title">Readiness</h2>
            {problems.length === 0 && (!missing || missing.length === 0) && <p class="good-text">Nothing missing so far.</p>}
            {problems.length > 0 && (
              <ul>
                {problems.map((p) => (
                  <li>
                    {p.channel && <strong>{p.channel}: </strong>}
                    {p.reason}
                  </li>
                ))}
              </ul>
            )}
            {missing && missing.length > 0 && (
              <>
                <p>The server's check of the saved draft:</p>
                <ul>
                  {missing.flatMap((m) =>
                    m.items.map((item) => (
                      <li>
                        <strong>{m.channel}: </strong>
                        {item.reason} <span class="muted">({item.field})</span>
                      </li>
                    )),
                  )}
                </ul>
              </>
            )}
          </section>

          <p role="status" class={message ? `banner ${message.bad ? 'bad' : 'good'}` : 'visually-hidden'}>
            {message?.text ?? ''}
            {message && !message.bad && created.length > 1 && (
              <span class="created-links">
                {' '}
                Open:{' '}
                {created.map((p) => (
                  <a href={`/app/posts/${encodeURIComponent(p.postId)}`} onClick={follow}>
                    {channelsById.get(p.integration)?.name ?? p.postId}
                  </a>
                ))}
              </span>
            )}
          </p>

          {confirming && (
            <div class="confirm" role="alertdialog" aria-labelledby="confirm-text">
              <p id="confirm-text">
                Publish now to {selected.length === 1 ? channelsById.get(selected[0]!)?.name : `${selected.length} channels`}? This cannot
                be undone.
              </p>
              <div class="actions">
                <button type="button" class="danger" onClick={() => submit('now')}>
                  Yes, publish now
                </button>
                <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </div>
            </div>
          )}

          <div class="actions">
            <button
              type="button"
              class="secondary"
              disabled={busy !== null || selected.length === 0 || !canSchedule}
              onClick={() => submit('draft')}
            >
              {busy === 'draft' ? 'Saving…' : 'Save as draft'}
            </button>
            <button type="button" disabled={busy !== null || blocked || !canSchedule} onClick={() => submit('schedule')}>
              {busy === 'schedule' ? 'Scheduling…' : 'Schedule'}
            </button>
            {publisher && (
              <>
                <button
                  type="button"
                  class="secondary"
                  disabled={busy !== null || blocked || !canSchedule}
                  onClick={() => setConfirming(true)}
                >
                  {busy === 'now' ? 'Publishing…' : 'Publish now'}
                </button>
                {!editing && (
                  <>
                    <button type="button" class="secondary" disabled={busy !== null || blocked} onClick={() => submit('queue')}>
                      {busy === 'queue' ? 'Adding…' : 'Add to queue'}
                    </button>
                    <button type="button" class="secondary" disabled={busy !== null || blocked} onClick={() => submit('repeat')}>
                      {busy === 'repeat' ? 'Saving…' : 'Repeat'}
                    </button>
                  </>
                )}
              </>
            )}
          </div>
        </div>

        <div class="composer-previews" aria-label="Previews">
          <h2>Previews</h2>
          {selected.length === 0 && <p class="muted">Choose a channel to see how the post will look there.</p>}
          {selected.map((id) => {
            const channel = channelsById.get(id);
            return (
              channel && (
                <Preview
                  channel={channel}
                  info={infos[id]}
                  exact={exact[id]?.[0]}
                  text={plainFor(id)}
                  media={altRule(infos[id]?.settings) ? media : media.map((m) => ({ ...m, alt: '' }))}
                  comments={realComments.map((c) => ({ text: plainTextOf(c.text), delay: c.delay }))}
                />
              )
            );
          })}
        </div>
      </div>
    </section>
  );
}
