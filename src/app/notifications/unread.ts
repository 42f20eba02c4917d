import { api } from '../api.ts';

/**
 * Puts the member's unread count (the API's, kept per member on the server: the same in every
 * browser) next to the header's Notifications link; nothing when all are read.
 */
export function showUnreadCount(unread: number): void {
  const link = document.querySelector<HTMLAnchorElement>('header nav a[href="/app/notifications"]');
  if (!link) return;
  link.querySelector('.unread')?.remove();
  if (unread === 0) return;
  const badge = document.createElement('span');
  badge.className = 'unread';
  // The API counts up to 100.
  badge.textContent = unread >= 100 ? '99+' : String(unread);
  badge.setAttribute('aria-label', `${badge.textContent} unread`);
  link.append(' ', badge);
}

/** Reads the count from the API and shows it. */
export async function refreshUnreadCount(): Promise<void> {
  const page = await api('get', '/notifications', { query: { page: '0' } });
  showUnreadCount(page.unreadCount);
}
