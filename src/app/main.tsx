import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './app.css';
import './library.css';
import { routeOf, type Route } from './navigate.ts';
import { refreshUnreadCount } from './notifications/unread.ts';
import type { Viewer } from './roles.ts';

type View = { default: (props: { viewer: Viewer; route: Route }) => preact.JSX.Element };

/** The app's views, each loaded when first shown (its own chunk). */
const VIEWS: Record<Route['view'], { name: string; title: string; load: () => Promise<View> }> = {
  calendar: { name: 'the calendar', title: 'Calendar', load: () => import('./calendar.tsx') },
  compose: { name: 'the composer', title: 'New post', load: () => import('./composer/composer.tsx') },
  edit: { name: 'the composer', title: 'Edit the post', load: () => import('./composer/composer.tsx') },
  post: { name: 'the post', title: 'Post', load: () => import('./post-detail/post-detail.tsx') },
  media: { name: 'the media library', title: 'Media', load: () => import('./media/media-view.tsx') },
  channels: { name: 'the channels', title: 'Channels', load: () => import('./channels/channels-view.tsx') },
  notifications: { name: 'the notifications', title: 'Notifications', load: () => import('./notifications/notifications-view.tsx') },
  analytics: { name: 'the analytics', title: 'Analytics', load: () => import('./analytics/analytics-view.tsx') },
};

function App({ viewer }: { viewer: Viewer }) {
  const [route, setRoute] = useState<Route | null>(() => routeOf(location));
  const [view, setView] = useState<{ for: Route['view']; module: View } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    const onPop = () => setRoute(routeOf(location));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  useEffect(() => {
    if (!route) return;
    document.title = `${VIEWS[route.view].title} · Herald`;
    setFailed(null);
    VIEWS[route.view].load().then(
      (module) => setView({ for: route.view, module }),
      (error: unknown) => setFailed(error instanceof Error ? error.message : String(error)),
    );
  }, [route?.view]);
  if (!route) return <h1>There is no such page in the app.</h1>;
  const name = VIEWS[route.view].name;
  if (failed)
    return (
      <p class="banner bad">
        {`${name[0]!.toUpperCase()}${name.slice(1)}`} could not be loaded: {failed}. Reload the page to try again.
      </p>
    );
  if (!view || view.for !== route.view) return <p class="muted">Loading {name}…</p>;
  const Current = view.module.default;
  return <Current key={JSON.stringify(route)} viewer={viewer} route={route} />;
}

const mount = document.getElementById('app');
if (mount) {
  const role = document.querySelector<HTMLMetaElement>('meta[name="herald-role"]')?.content ?? '';
  mount.textContent = '';
  const viewer = { role, workspace: mount.dataset.workspace ?? '' };
  render(<App viewer={viewer} />, mount);
  void refreshUnreadCount().catch(() => undefined);
}
