import { useEffect, useState } from 'preact/hooks';
import { api, type Notification } from '../api.ts';
import type { Viewer } from '../roles.ts';
import { Banner, type Message } from '../shared/banner.tsx';
import { messageOf, when } from '../shared/format.ts';
import { showUnreadCount } from './unread.ts';

const KINDS: Record<Notification['type'], string> = {
  publish_failed: 'Publishing failed',
  comment_failed: 'A comment failed',
  publish_confirmed: 'Published after all',
  channel_disconnected: 'Channel needs reconnecting',
  limit_warning: 'Plan limit',
  webhook_disabled: 'Webhook disabled',
  approval_requested: 'Awaiting approval',
  post_approved: 'Approved',
  post_rejected: 'Rejected',
};

/** Where a notification leads: the post it names, else its channel, else the page that handles its kind. */
function linkOf(n: Notification): { href: string; label: string } | null {
  if (n.postId) return { href: `/app/posts/${encodeURIComponent(n.postId)}`, label: 'Open the post' };
  if (n.integration) return { href: `/app/channels#channel-${encodeURIComponent(n.integration)}`, label: 'Open the channel' };
  if (n.type === 'webhook_disabled') return { href: '/account/webhooks', label: 'Open the webhooks' };
  return null;
}

/** The workspace's notifications, newest first; opening the first page marks them read for the member (on the server). */
export default function NotificationsView(_props: { viewer: Viewer }) {
  const [page, setPage] = useState(0);
  const [list, setList] = useState<{ notifications: Notification[]; hasMore: boolean } | null>(null);
  const [message, setMessage] = useState<Message>(null);

  useEffect(() => {
    api('get', '/notifications', { query: { page: String(page) } }).then(
      (result) => {
        setList(result);
        const newest = result.notifications[0];
        if (page === 0 && newest?.unread)
          api('post', '/notifications/read', { body: { until: newest.id } }).then(
            (read) => showUnreadCount(read.unreadCount),
            () => undefined,
          );
      },
      (error: unknown) => setMessage({ text: messageOf(error), bad: true }),
    );
  }, [page]);

  return (
    <section class="notifications-view" aria-labelledby="notifications-title">
      <h1 id="notifications-title">Notifications</h1>
      <Banner message={message} />
      {list === null ? (
        <p class="muted">Loading the notifications…</p>
      ) : list.notifications.length === 0 ? (
        <p class="muted">Nothing to report.</p>
      ) : (
        <ol class="notification-list">
          {list.notifications.map((n) => {
            const link = linkOf(n);
            const fresh = n.unread === true;
            return (
              <li class={`notification kind-${n.type}${fresh ? ' fresh' : ''}`}>
                <p class="kind">
                  {KINDS[n.type] ?? n.type}
                  {fresh && <span class="tag tone-warn">New</span>}
                </p>
                <p>{n.message}</p>
                <p class="muted small">
                  <time dateTime={n.createdAt}>{when(n.createdAt)}</time>
                  {link && (
                    <>
                      {' · '}
                      <a href={link.href}>{link.label}</a>
                    </>
                  )}
                </p>
              </li>
            );
          })}
        </ol>
      )}
      {list && (page > 0 || list.hasMore) && (
        <nav class="pager" aria-label="Pages">
          <button type="button" class="secondary" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span>Page {page + 1}</span>
          <button type="button" class="secondary" disabled={!list.hasMore} onClick={() => setPage(page + 1)}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
