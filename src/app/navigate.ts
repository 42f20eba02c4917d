/** The app's own addresses under /app: one page, the view chosen by the path (history API, no reload). */
export type Route =
  | { view: 'calendar' }
  | { view: 'compose'; date: string | null }
  | { view: 'edit'; id: string }
  | { view: 'post'; id: string }
  | { view: 'media' }
  | { view: 'channels' }
  | { view: 'notifications' }
  | { view: 'analytics' };

/** The views whose address is their name alone (/app/media). */
const NAMED = ['media', 'channels', 'notifications', 'analytics'] as const;

export function routeOf(location: { pathname: string; search: string }): Route | null {
  const path = location.pathname.replace(/\/+$/, '');
  if (path === '/app') return { view: 'calendar' };
  if (path === '/app/compose') return { view: 'compose', date: new URLSearchParams(location.search).get('date') };
  const named = NAMED.find((name) => path === `/app/${name}`);
  if (named) return { view: named };
  const post = /^\/app\/posts\/([^/]+)(\/edit)?$/.exec(path);
  if (post) return post[2] ? { view: 'edit', id: decodeURIComponent(post[1]!) } : { view: 'post', id: decodeURIComponent(post[1]!) };
  return null;
}

/** Goes to another of the app's addresses without reloading the page. */
export function navigate(href: string): void {
  history.pushState(null, '', href);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** A link's click handler: the app's own navigation for a plain click, the browser's for a modified one (new tab). */
export function follow(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = (event.currentTarget as HTMLAnchorElement).getAttribute('href');
  if (!href) return;
  event.preventDefault();
  navigate(href);
}
