import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './app.css';
import './library.css';
import { showUnreadCount } from './notifications/unread.ts';
import type { Viewer } from './roles.ts';

type View = { default: (props: { viewer: Viewer }) => preact.JSX.Element };

/** The app's views, each loaded when first shown (its own chunk). */
const VIEWS: Record<string, () => Promise<View>> = {
  calendar: () => import('./calendar.tsx'),
  media: () => import('./media/media-view.tsx'),
  channels: () => import('./channels/channels-view.tsx'),
  notifications: () => import('./notifications/notifications-view.tsx'),
  analytics: () => import('./analytics/analytics-view.tsx'),
};

/** The view the address names (/app/media → media); the calendar for /app and anything unknown. */
function viewName(pathname: string): string {
  const name = pathname.replace(/^\/app\/?/, '').split('/')[0] ?? '';
  return Object.hasOwn(VIEWS, name) ? name : 'calendar';
}

function App({ viewer }: { viewer: Viewer }) {
  const [view, setView] = useState<View | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    VIEWS[viewName(location.pathname)]!().then(setView, (error: unknown) =>
      setFailed(error instanceof Error ? error.message : String(error)),
    );
  }, []);
  if (failed) return <p class="banner bad">This page could not be loaded: {failed}. Reload the page to try again.</p>;
  if (!view) return <p class="muted">Loading…</p>;
  const Shown = view.default;
  return <Shown viewer={viewer} />;
}

const mount = document.getElementById('app');
if (mount) {
  const role = document.querySelector<HTMLMetaElement>('meta[name="herald-role"]')?.content ?? '';
  mount.textContent = '';
  const viewer = { role, workspace: mount.dataset.workspace ?? '' };
  render(<App viewer={viewer} />, mount);
  void showUnreadCount(viewer.workspace).catch(() => undefined);
}
