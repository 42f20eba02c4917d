import { useEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../client/api-types.ts';
import { api, ApiFailure, type Channel, type Post } from '../api.ts';
import { follow, navigate, type Route } from '../navigate.ts';
import { mayCompose, mayPublish, type Viewer } from '../roles.ts';
import { chosenZone, STATES } from '../states.ts';
import { plainText } from '../text.ts';
import { formatInstant } from '../zone-time.ts';

type PostAnalytics = components['schemas']['PostAnalytics'];
type Missing = components['schemas']['MissingCheck'];
type ErrorKind = NonNullable<Post['errorKind']>;

/** What went wrong in words, and what the person can do about it, by the API's `errorKind`. */
const WHAT_TO_DO: Record<ErrorKind, string> = {
  auth: 'The channel needs reconnecting: reconnect it under Channels, then retry.',
  rejected: 'The platform refused the post. Fix what it says (the text, the media or the settings), then retry.',
  unconfirmed: 'Herald could not tell whether the post went out. Look on the platform before retrying, so that it is not posted twice.',
  missing: 'Something the platform needs was missing. Edit the post (the readiness check says what), then retry.',
  gave_up: 'Herald tried several times and gave up. Check that the platform works, then retry.',
  channel_disabled: 'The channel is disabled. Reconnect or enable it under Channels, then retry.',
  skipped: 'Its time passed while the server was not running, so it was not published. Give it a new time and schedule it.',
};
const EDITABLE = new Set<Post['state']>(['DRAFT', 'QUEUE', 'AWAITING_APPROVAL', 'ERROR']);
const METRIC_WORDS: Record<string, string> = { profile_visits: 'profile visits', watch_time: 'watch time' };

function randomKey(): string {
  return typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** One post: its state and history, links once published, the error in words, the actions the API allows, its numbers. */
export default function PostDetail({ viewer, route }: { viewer: Viewer; route: Route }) {
  const id = route.view === 'post' ? route.id : '';
  const zone = chosenZone();
  const [post, setPost] = useState<Post | null>(null);
  const [channel, setChannel] = useState<Channel | null>(null);
  const [missing, setMissing] = useState<Missing | null>(null);
  const [analytics, setAnalytics] = useState<PostAnalytics | null>(null);
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const retryKey = useRef(randomKey());

  async function load() {
    try {
      const read = await api('get', '/posts/{id}', { params: { id } });
      setPost(read);
      if (EDITABLE.has(read.state)) api('get', '/posts/{id}/missing', { params: { id } }).then(setMissing, () => setMissing(null));
      if (read.state === 'PUBLISHED') api('get', '/analytics/posts/{id}', { params: { id } }).then(setAnalytics, () => setAnalytics(null));
      return read;
    } catch (error) {
      setLoadError(
        error instanceof ApiFailure && error.status === 404
          ? 'There is no such post in this workspace (it may have been deleted).'
          : (error as Error).message,
      );
      return null;
    }
  }

  useEffect(() => {
    load().then((read) => {
      if (!read) return;
      api('get', '/integrations').then(
        (all) => setChannel(all.find((c) => c.id === read.integration.id) ?? null),
        () => {},
      );
    });
  }, [id]);

  // While the post is on its way out, read it again until it is published or failed.
  useEffect(() => {
    if (!post) return;
    const due = post.state === 'PUBLISHING' || (post.state === 'QUEUE' && Date.parse(post.publishDate) <= Date.now() + 5_000);
    if (!due) return;
    const timer = setTimeout(load, 1500);
    return () => clearTimeout(timer);
  }, [post]);

  if (loadError)
    return (
      <section>
        <h1>Post</h1>
        <p class="banner bad">{loadError}</p>
        <a href="/app" onClick={follow}>
          Back to the calendar
        </a>
      </section>
    );
  if (!post) return <p class="muted">Loading the post…</p>;

  const state = STATES[post.state];
  const writer = mayCompose(viewer.role);
  const publisher = mayPublish(viewer.role);

  async function act(what: string, call: () => Promise<unknown>) {
    setBusy(true);
    setMessage(null);
    try {
      await call();
      setMessage({ text: what, bad: false });
      await load();
    } catch (error) {
      setMessage({ text: error instanceof ApiFailure ? error.message : 'The server could not be reached; try again.', bad: true });
    } finally {
      setBusy(false);
    }
  }

  const retry = () =>
    act('Sent again: it goes out now.', () =>
      api('patch', '/posts/{id}', {
        params: { id },
        body: { type: 'schedule', date: new Date().toISOString() },
        headers: { 'idempotency-key': retryKey.current },
      }),
    );
  const toDraft = () =>
    act('Moved to drafts: it will not be published until it is scheduled again.', () =>
      post.state === 'ERROR'
        ? api('patch', '/posts/{id}', { params: { id }, body: { type: 'draft' } })
        : api('put', '/posts/{id}/status', { params: { id }, body: { status: 'draft' } }),
    );
  const schedule = () => act('Scheduled.', () => api('put', '/posts/{id}/status', { params: { id }, body: { status: 'schedule' } }));
  async function remove() {
    setBusy(true);
    try {
      await api('delete', '/posts/{id}', { params: { id } });
      navigate('/app');
    } catch (error) {
      setMessage({ text: error instanceof ApiFailure ? error.message : 'The server could not be reached; try again.', bad: true });
      setBusy(false);
    }
  }

  const links = post.value.filter((part) => part.releaseURL);
  const partErrors = post.value.map((part, i) => ({ i, error: part.error })).filter((p) => p.error);

  return (
    <section class="post-detail" aria-labelledby="post-title">
      <div class="view-head">
        <h1 id="post-title">
          <span class={`tag state state-${post.state.toLowerCase()}`}>
            <span aria-hidden="true">{state.mark}</span> {state.label}
          </span>{' '}
          {channel ? channel.name : post.integration.providerIdentifier}
        </h1>
        <a href="/app" onClick={follow}>
          Back to the calendar
        </a>
      </div>

      <dl class="facts">
        <dt>Channel</dt>
        <dd>{channel ? `${channel.name} (${channel.identifier})` : `${post.integration.providerIdentifier} (deleted channel)`}</dd>
        <dt>{post.state === 'PUBLISHED' ? 'Published' : 'Time'}</dt>
        <dd>
          {formatInstant(post.publishedAt ?? post.publishDate, zone)} ({zone})
        </dd>
        {post.series && (
          <>
            <dt>Series</dt>
            <dd>One occurrence of a repeating post{post.series.edited ? ', edited on its own' : ''}.</dd>
          </>
        )}
      </dl>

      {links.length > 0 && (
        <section aria-labelledby="links-title">
          <h2 id="links-title">On the platform</h2>
          <ul class="release-links">
            {post.value.map(
              (part, i) =>
                part.releaseURL && (
                  <li>
                    {i === 0 ? 'The post' : `Comment ${i}`}:{' '}
                    <a href={part.releaseURL} rel="noopener noreferrer" target="_blank">
                      {part.releaseURL}
                    </a>
                  </li>
                ),
            )}
          </ul>
        </section>
      )}

      {(post.error || partErrors.length > 0) && (
        <section class="banner bad" aria-labelledby="error-title">
          <h2 id="error-title">What went wrong</h2>
          {post.error && <p>{post.error}</p>}
          {partErrors
            .filter((p) => p.error !== post.error)
            .map((p) => (
              <p>
                {p.i === 0 ? 'The post' : `Comment ${p.i}`}: {p.error}
              </p>
            ))}
          {post.errorKind && <p>{WHAT_TO_DO[post.errorKind]}</p>}
        </section>
      )}

      <h2>Text</h2>
      <p class="content">{plainText(post.content) || <span class="muted">(no text)</span>}</p>
      {post.value[0] && post.value[0].image.length > 0 && (
        <ul class="preview-media">
          {post.value[0].image.map((image) => (
            <li>
              <img src={image.path} alt="" />
            </li>
          ))}
        </ul>
      )}
      {post.value.length > 1 && (
        <>
          <h2>Comments</h2>
          <ol class="comments">
            {post.value.slice(1).map((part) => (
              <li>
                <span class="muted">
                  {part.delay ? `${part.delay} min after the one before` : 'Right after the one before'} · {part.state.toLowerCase()}
                </span>
                <p class="content">{plainText(part.content)}</p>
              </li>
            ))}
          </ol>
        </>
      )}

      {missing && EDITABLE.has(post.state) && (
        <section class="readiness" aria-labelledby="readiness-title">
          <h2 id="readiness-title">Readiness</h2>
          {missing.ready ? (
            <p class="good-text">Nothing missing: it can be published.</p>
          ) : (
            <ul>
              {missing.missing.map((m) => (
                <li>
                  {m.reason} <span class="muted">({m.field})</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}

      <p role="status" class={message ? `banner ${message.bad ? 'bad' : 'good'}` : 'visually-hidden'}>
        {message?.text ?? ''}
      </p>

      {writer && (
        <div class="actions">
          {EDITABLE.has(post.state) && (
            <a class="button secondary" href={`/app/posts/${encodeURIComponent(id)}/edit`} onClick={follow}>
              Edit
            </a>
          )}
          {post.state === 'ERROR' && publisher && (
            <button type="button" disabled={busy} onClick={retry}>
              Retry now
            </button>
          )}
          {post.state === 'DRAFT' && (
            <button type="button" disabled={busy} onClick={schedule}>
              Schedule
            </button>
          )}
          {['QUEUE', 'AWAITING_APPROVAL', 'ERROR'].includes(post.state) && (
            <button type="button" class="secondary" disabled={busy} onClick={toDraft}>
              Move to draft
            </button>
          )}
          {post.state !== 'PUBLISHING' && (
            <button type="button" class="danger" disabled={busy} onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          )}
        </div>
      )}
      {confirmDelete && (
        <div class="confirm" role="alertdialog" aria-labelledby="delete-text">
          <p id="delete-text">
            {post.state === 'PUBLISHED'
              ? 'Remove this post from the calendar? It stays on the platform.'
              : 'Delete this post? Its publishing stops, and this cannot be undone.'}
          </p>
          <div class="actions">
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              Yes, delete
            </button>
            <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}

      <h2>History</h2>
      <ol class="history">
        <li>Created {formatInstant(post.createdAt, zone)}</li>
        {(post.approvals ?? []).map((step) => (
          <li>
            {step.decision === 'requested' ? 'Approval requested' : step.decision === 'approved' ? 'Approved' : 'Rejected'}
            {step.by && ` by ${step.by.name ?? step.by.email ?? 'a member'}`} {formatInstant(step.at, zone)}
            {step.comment && `: ${step.comment}`}
          </li>
        ))}
        {post.updatedAt !== post.createdAt && <li>Last changed {formatInstant(post.updatedAt, zone)}</li>}
        {post.value.map(
          (part, i) =>
            part.publishedAt && (
              <li>
                {i === 0 ? 'Published' : `Comment ${i} published`} {formatInstant(part.publishedAt, zone)}
              </li>
            ),
        )}
        <li>
          Now: {state.label.toLowerCase()}
          {post.state === 'QUEUE' && `, goes out ${formatInstant(post.publishDate, zone)}`}
        </li>
      </ol>

      {post.state === 'PUBLISHED' && (
        <section aria-labelledby="numbers-title">
          <h2 id="numbers-title">Numbers</h2>
          {!analytics || Object.keys(analytics.metrics).length === 0 ? (
            <p class="muted">
              {analytics?.metricsUpdatedAt === null || !analytics
                ? 'No numbers yet: Herald reads them from the platform hourly in a post’s first day (where the platform reports any).'
                : 'The platform reports no numbers for this post.'}
            </p>
          ) : (
            <>
              <dl class="facts metrics">
                {Object.entries(analytics.metrics).map(([name, value]) => (
                  <>
                    <dt>{METRIC_WORDS[name] ?? name}</dt>
                    <dd>{value.toLocaleString()}</dd>
                  </>
                ))}
              </dl>
              {analytics.metricsUpdatedAt && <p class="muted">Read {formatInstant(analytics.metricsUpdatedAt, zone)}.</p>}
            </>
          )}
        </section>
      )}
    </section>
  );
}
