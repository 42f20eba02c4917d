import { api } from '../api.ts';

/** The newest notification this browser has shown the person, per workspace. */
const SEEN_KEY = 'herald.notificationsSeen';

function seenKey(workspace: string): string {
  return `${SEEN_KEY}.${workspace}`;
}

export function lastSeen(workspace: string): string {
  return localStorage.getItem(seenKey(workspace)) ?? '';
}

export function markSeen(workspace: string, newest: string | undefined): void {
  if (newest && newest > lastSeen(workspace)) localStorage.setItem(seenKey(workspace), newest);
}

/**
 * Puts the count of notifications newer than the last one seen next to the header's
 * Notifications link (the first page of 20 is read: "20+" beyond it).
 */
export async function showUnreadCount(workspace: string): Promise<void> {
  const link = document.querySelector<HTMLAnchorElement>('header nav a[href="/app/notifications"]');
  if (!link) return;
  const page = await api('get', '/notifications', { query: { page: '0' } });
  const seen = lastSeen(workspace);
  const unread = page.notifications.filter((n) => n.createdAt > seen).length;
  link.querySelector('.unread')?.remove();
  if (unread === 0) return;
  const badge = document.createElement('span');
  badge.className = 'unread';
  badge.textContent = unread === page.notifications.length && page.hasMore ? `${unread}+` : String(unread);
  badge.setAttribute('aria-label', `${badge.textContent} unread`);
  link.append(' ', badge);
}
