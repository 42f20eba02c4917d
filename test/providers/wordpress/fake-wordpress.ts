// A local server speaking the WordPress REST API (https://developer.wordpress.org/rest-api/) for
// what Herald uses: the REST root announced in a `Link` header on the site's pages, with or
// without pretty permalinks (`/wp-json/…` or `?rest_route=…`); application passwords over HTTP
// Basic; `users/me?context=edit` with the user's capabilities by role; media uploads as raw
// bytes named by Content-Disposition; posts with status, terms, excerpt, slug and featured media;
// categories and tags (list, search, create, `term_exists`); and WordPress's error answers
// `{code, message, data: {status}}` with the statuses core gives them.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { FakeHttpServer, type FakeCall, type FakeReply } from '../../helpers/fake-http.ts';

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
export type FakeUser = { id: number; login: string; slug: string; name: string; role: Role; passwords: Set<string> };
export type FakePost = {
  id: number;
  author: number;
  title: string;
  content: string;
  status: string;
  categories: number[];
  tags: number[];
  excerpt: string;
  slug: string;
  featured_media: number;
  link: string;
};
export type FakeMedia = {
  id: number;
  author: number;
  filename: string;
  mimeType: string;
  bytes: Buffer;
  alt_text: string;
  source_url: string;
};
type Term = { id: number; name: string; slug: string; parent: number; count: number };
/** What an override installed with `on` sees of a request: the REST route (`/wp/v2/posts`) and its method. */
type Call = { method: string; route: string; headers: http.IncomingHttpHeaders };

const CAPABILITIES: Record<Role, string[]> = {
  administrator: ['edit_posts', 'publish_posts', 'upload_files', 'manage_categories', 'list_users'],
  editor: ['edit_posts', 'publish_posts', 'upload_files', 'manage_categories'],
  author: ['edit_posts', 'publish_posts', 'upload_files'],
  contributor: ['edit_posts'],
  subscriber: ['read'],
};
const MIME_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export function wpError(status: number, code: string, message: string, data: Record<string, unknown> = {}): FakeReply {
  return { status, body: { code, message, data: { status, ...data } } };
}

const slugify = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export class FakeWordPress extends FakeHttpServer<Call> {
  siteName = 'Field Notes';
  /** Whether the site has pretty permalinks (`/wp-json/`) or announces `?rest_route=`. */
  pretty = true;
  /** Whether pages carry the `Link` header announcing the REST root. */
  announce = true;
  readonly users = new Map<number, FakeUser>();
  readonly posts: FakePost[] = [];
  readonly media: FakeMedia[] = [];
  readonly categories: Term[] = [{ id: 1, name: 'Uncategorized', slug: 'uncategorized', parent: 0, count: 0 }];
  readonly tags: Term[] = [];
  #next = 100;

  constructor() {
    super();
    this.addUser({ id: 1, login: 'ana', slug: 'ana', name: 'Ana Admin', role: 'administrator' });
    this.addUser({ id: 2, login: 'carl', slug: 'carl', name: 'Carl Contributor', role: 'contributor' });
    this.addUser({ id: 3, login: 'sam', slug: 'sam', name: 'Sam Subscriber', role: 'subscriber' });
  }

  addUser(user: Omit<FakeUser, 'passwords'>): void {
    this.users.set(user.id, { ...user, passwords: new Set() });
  }

  /** A new application password for the user, shown as WordPress shows it: six groups of four. */
  applicationPassword(userId: number): string {
    const password = randomBytes(18)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, 'x')
      .slice(0, 24);
    this.users.get(userId)!.passwords.add(password);
    return password.match(/.{4}/g)!.join(' ');
  }

  revokePasswords(userId: number): void {
    this.users.get(userId)!.passwords.clear();
  }

  get apiRoot(): string {
    return this.pretty ? `${this.url}/wp-json/` : `${this.url}/?rest_route=/`;
  }

  protected async serve(call: FakeCall): Promise<FakeReply> {
    const route = call.path.startsWith('/wp-json')
      ? call.path.slice('/wp-json'.length) || '/'
      : call.path === '/' && call.url.searchParams.has('rest_route')
        ? call.url.searchParams.get('rest_route')!
        : null;
    if (route === null) {
      // A page of the site: WordPress announces its REST root on every page.
      if (call.path !== '/') return { status: 404, body: '<html>Not found</html>', headers: { 'content-type': 'text/html' } };
      return {
        status: 200,
        body: call.method === 'HEAD' ? undefined : `<html><title>${this.siteName}</title></html>`,
        headers: { 'content-type': 'text/html', ...(this.announce && { link: `<${this.apiRoot}>; rel="https://api.w.org/"` }) },
      };
    }
    if (this.pretty !== call.path.startsWith('/wp-json'))
      return wpError(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    const scripted = this.scripted.take({ method: call.method, route, headers: call.headers });
    if (scripted) return scripted;
    return this.#route(call, route.replace(/\/+$/, '') || '/');
  }

  #user(call: FakeCall): FakeUser | FakeReply | null {
    const basic = /^Basic (.+)$/.exec(call.headers.authorization ?? '')?.[1];
    if (!basic) return null;
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const login = decoded.slice(0, decoded.indexOf(':'));
    const password = decoded.slice(decoded.indexOf(':') + 1).replace(/\s+/g, '');
    const user = [...this.users.values()].find((u) => u.login === login);
    if (!user) return wpError(401, 'invalid_username', 'Unknown username. Check again or try your email address.');
    if (!user.passwords.has(password))
      return wpError(401, 'incorrect_password', 'The provided password is an invalid application password.');
    return user;
  }

  #json(call: FakeCall): Record<string, unknown> {
    const type = String(call.headers['content-type'] ?? '');
    return type.startsWith('application/json') && call.raw.length ? (JSON.parse(call.raw.toString('utf8')) as Record<string, unknown>) : {};
  }

  #route(call: FakeCall, route: string): FakeReply {
    if (route === '/' && call.method === 'GET')
      return {
        status: 200,
        body: { name: this.siteName, description: 'A site', url: this.url, home: this.url, namespaces: ['oembed/1.0', 'wp/v2'] },
      };
    const who = this.#user(call);
    if (who && 'status' in who) return who;
    const user = who as FakeUser | null;
    const can = (cap: string) => Boolean(user && CAPABILITIES[user.role].includes(cap));
    const query = call.url.searchParams;

    if (route === '/wp/v2/users/me' && call.method === 'GET') {
      if (!user) return wpError(401, 'rest_not_logged_in', 'You are not currently logged in.');
      return {
        status: 200,
        body: {
          id: user.id,
          name: user.name,
          slug: user.slug,
          link: `${this.url}/author/${user.slug}/`,
          avatar_urls: { '24': `${this.url}/avatar/${user.id}?s=24`, '96': `${this.url}/avatar/${user.id}?s=96` },
          ...(query.get('context') === 'edit' && {
            username: user.login,
            roles: [user.role],
            capabilities: Object.fromEntries(['edit_posts', 'publish_posts', 'upload_files'].map((c) => [c, can(c)])),
          }),
        },
      };
    }

    if (route === '/wp/v2/media' && call.method === 'POST') {
      if (!can('upload_files'))
        return wpError(user ? 403 : 401, 'rest_cannot_create', 'Sorry, you are not allowed to upload media on this site.');
      if (call.raw.length === 0) return wpError(400, 'rest_upload_no_data', 'No data supplied.');
      const disposition = String(call.headers['content-disposition'] ?? '');
      const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1];
      if (!filename) return wpError(400, 'rest_upload_no_content_disposition', 'No Content-Disposition supplied.');
      const mimeType = String(call.headers['content-type'] ?? '');
      if (!MIME_TYPES.has(mimeType))
        return wpError(500, 'rest_upload_sideload_error', 'Sorry, you are not allowed to upload this file type.');
      const id = this.#next++;
      const item = {
        id,
        author: user!.id,
        filename,
        mimeType,
        bytes: call.raw,
        alt_text: query.get('alt_text') ?? '',
        source_url: `${this.url}/wp-content/uploads/${filename}`,
      };
      this.media.push(item);
      return { status: 201, body: { id, source_url: item.source_url, alt_text: item.alt_text, mime_type: mimeType, media_type: 'image' } };
    }

    if (route === '/wp/v2/posts' && call.method === 'POST') {
      if (!can('edit_posts'))
        return wpError(user ? 403 : 401, 'rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.');
      const body = this.#json(call);
      const status = String(body.status ?? 'draft');
      if (!['publish', 'future', 'draft', 'pending', 'private'].includes(status))
        return wpError(400, 'rest_invalid_param', 'Invalid parameter(s): status', {
          params: { status: 'status is not one of publish, future, draft, pending, private, trash.' },
        });
      if ((status === 'publish' || status === 'private') && !can('publish_posts'))
        return wpError(403, 'rest_cannot_publish', 'Sorry, you are not allowed to publish posts in this post type.');
      const categories = (body.categories as number[] | undefined) ?? [];
      const tags = (body.tags as number[] | undefined) ?? [];
      if (categories.some((id) => !this.categories.some((c) => c.id === id)) || tags.some((id) => !this.tags.some((t) => t.id === id)))
        return wpError(403, 'rest_cannot_assign_term', 'Sorry, you are not allowed to assign the provided terms.');
      const featured = Number(body.featured_media ?? 0);
      if (featured && !this.media.some((m) => m.id === featured))
        return wpError(400, 'rest_invalid_featured_media', 'Invalid featured media ID.');
      const title = String(body.title ?? '');
      const content = String(body.content ?? '');
      if (!title && !content && !body.excerpt) return wpError(400, 'empty_content', 'Content, title, and excerpt are empty.');
      const id = this.#next++;
      const slug = String(body.slug ?? slugify(title));
      const post: FakePost = {
        id,
        author: user!.id,
        title,
        content,
        status,
        categories: categories.length ? categories : [1],
        tags,
        excerpt: String(body.excerpt ?? ''),
        slug,
        featured_media: featured,
        link: status === 'publish' ? `${this.url}/${slug}/` : `${this.url}/?p=${id}`,
      };
      this.posts.push(post);
      return { status: 201, body: { ...post, title: { raw: title, rendered: title }, content: { raw: content, rendered: content } } };
    }

    const taxonomy = /^\/wp\/v2\/(categories|tags)$/.exec(route)?.[1] as 'categories' | 'tags' | undefined;
    if (taxonomy && call.method === 'GET') {
      const search = query.get('search')?.toLowerCase();
      const perPage = Number(query.get('per_page') ?? 10);
      if (!(perPage >= 1 && perPage <= 100)) return wpError(400, 'rest_invalid_param', 'Invalid parameter(s): per_page');
      const terms = this[taxonomy].filter((t) => !search || t.name.toLowerCase().includes(search)).slice(0, perPage);
      return { status: 200, body: terms, headers: { 'x-wp-total': String(terms.length), 'x-wp-totalpages': '1' } };
    }
    if (taxonomy && call.method === 'POST') {
      if (!can('manage_categories'))
        return wpError(user ? 403 : 401, 'rest_cannot_create', 'Sorry, you are not allowed to create terms in this taxonomy.');
      const body = this.#json(call);
      const name = String(body.name ?? '').trim();
      if (!name) return wpError(400, 'rest_missing_callback_param', 'Missing parameter(s): name');
      const existing = this[taxonomy].find((t) => t.name.toLowerCase() === name.toLowerCase());
      if (existing)
        return wpError(400, 'term_exists', 'A term with the name provided already exists in this taxonomy.', { term_id: existing.id });
      const term = { id: this.#next++, name, slug: slugify(name), parent: Number(body.parent ?? 0), count: 0 };
      this[taxonomy].push(term);
      return { status: 201, body: term };
    }
    return wpError(404, 'rest_no_route', 'No route was found matching the URL and request method.');
  }
}
