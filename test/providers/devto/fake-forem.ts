// A local server speaking the Forem API v1 (https://developers.forem.com/api/v1) for what Herald
// uses: the `api-key` header and a user agent (requests without one are refused), `users/me`,
// creating articles (title, body_markdown, published, tags, series, canonical_url, main_image,
// description, organization_id) with Forem's checks (at most 4 tags of letters and digits, a
// title the account used within five minutes refused), the account's articles with their
// counts, organizations by username, and Forem's error answers `{error, status}`.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { FakeHttpServer, type FakeCall, type FakeReply } from '../../helpers/fake-http.ts';

export type FakeArticle = {
  id: number;
  user: number;
  title: string;
  body_markdown: string;
  published: boolean;
  tags: string[];
  series: string | null;
  canonical_url: string | null;
  main_image: string | null;
  description: string;
  organization_id: number | null;
  url: string;
  createdAt: number;
  page_views_count: number;
  public_reactions_count: number;
  comments_count: number;
};
type User = { id: number; username: string; name: string; keys: Set<string>; organizations: number[] };
/** What an override installed with `on` sees of a request. */
type Call = { method: string; path: string; headers: http.IncomingHttpHeaders };

const FIVE_MINUTES_MS = 5 * 60_000;

export function foremError(status: number, error: string): FakeReply {
  return { status, body: { error, status } };
}

export class FakeForem extends FakeHttpServer<Call> {
  readonly users = new Map<number, User>();
  readonly articles: FakeArticle[] = [];
  readonly organizations = [{ id: 77, username: 'heraldhq', name: 'Herald HQ' }];
  /** The fake's clock for the five-minute title rule (tests move it, never sleep). */
  now = () => Date.now();
  #next = 5000;

  constructor() {
    super();
    this.users.set(1, { id: 1, username: 'ana_writes', name: 'Ana Writer', keys: new Set(), organizations: [77] });
    this.users.set(2, { id: 2, username: 'bo', name: '', keys: new Set(), organizations: [] });
  }

  apiKey(userId: number): string {
    const key = randomBytes(12).toString('base64url');
    this.users.get(userId)!.keys.add(key);
    return key;
  }

  revokeKeys(userId: number): void {
    this.users.get(userId)!.keys.clear();
  }

  get host(): string {
    return new URL(this.url).host;
  }

  protected serve(call: FakeCall): FakeReply {
    if (!call.headers['user-agent']) return foremError(403, 'forbidden: a User-Agent header is required');
    const scripted = this.scripted.take({ method: call.method, path: call.path, headers: call.headers });
    if (scripted) return scripted;
    const key = call.headers['api-key'];
    const user = typeof key === 'string' ? [...this.users.values()].find((u) => u.keys.has(key)) : undefined;
    const org = /^\/api\/organizations\/([^/]+)$/.exec(call.path);
    if (org && call.method === 'GET') {
      const found = this.organizations.find((o) => o.username === decodeURIComponent(org[1]!));
      return found ? { status: 200, body: { type_of: 'organization', ...found } } : foremError(404, 'not found');
    }
    if (!user) return foremError(401, 'unauthorized');
    if (call.path === '/api/users/me' && call.method === 'GET')
      return {
        status: 200,
        body: {
          type_of: 'user',
          id: user.id,
          username: user.username,
          name: user.name,
          profile_image: `${this.url}/avatars/${user.id}.png`,
        },
      };
    if (call.path === '/api/articles' && call.method === 'POST') return this.#create(user, call);
    if (call.path === '/api/articles/me/all' && call.method === 'GET') {
      const page = Number(call.url.searchParams.get('page') ?? 1);
      const perPage = Math.min(1000, Number(call.url.searchParams.get('per_page') ?? 30));
      const mine = this.articles.filter((a) => a.user === user.id).reverse();
      return {
        status: 200,
        body: mine.slice((page - 1) * perPage, page * perPage).map((a) => ({
          type_of: 'article',
          id: a.id,
          title: a.title,
          published: a.published,
          url: a.url,
          page_views_count: a.page_views_count,
          public_reactions_count: a.public_reactions_count,
          comments_count: a.comments_count,
        })),
      };
    }
    return foremError(404, 'not found');
  }

  #create(user: User, call: FakeCall): FakeReply {
    let body: { article?: Record<string, unknown> };
    try {
      body = JSON.parse(call.raw.toString('utf8')) as typeof body;
    } catch {
      return foremError(400, 'invalid JSON');
    }
    const a = body.article ?? {};
    const title = String(a.title ?? '').trim();
    if (!title) return foremError(422, "Title can't be blank");
    if (title.length > 128) return foremError(422, 'Title is too long (maximum is 128 characters)');
    const tags = Array.isArray(a.tags)
      ? a.tags.map(String)
      : String(a.tags ?? '')
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);
    if (tags.length > 4) return foremError(422, 'Tag list exceed the maximum of 4 tags');
    const bad = tags.find((t) => !/^[\p{L}\p{N}]+$/u.test(t));
    if (bad) return foremError(422, `Tag "${bad}" contains non-alphanumeric or prohibited unicode characters`);
    const now = this.now();
    if (this.articles.some((x) => x.user === user.id && x.title === title && now - x.createdAt < FIVE_MINUTES_MS))
      return foremError(422, 'Title has already been used in the last five minutes');
    const organization = a.organization_id === undefined || a.organization_id === null ? null : Number(a.organization_id);
    if (organization !== null && !user.organizations.includes(organization)) return foremError(422, 'Organization is not valid');
    const id = this.#next++;
    const slug = `${title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')}-${id.toString(36)}`;
    const article: FakeArticle = {
      id,
      user: user.id,
      title,
      body_markdown: String(a.body_markdown ?? ''),
      published: a.published === true,
      tags: tags.map((t) => t.toLowerCase()),
      series: typeof a.series === 'string' ? a.series : null,
      canonical_url: typeof a.canonical_url === 'string' ? a.canonical_url : null,
      main_image: typeof a.main_image === 'string' ? a.main_image : null,
      description: typeof a.description === 'string' ? a.description : '',
      organization_id: organization,
      url: `${this.url}/${user.username}/${slug}`,
      createdAt: now,
      page_views_count: 0,
      public_reactions_count: 0,
      comments_count: 0,
    };
    this.articles.push(article);
    return { status: 201, body: { type_of: 'article', id, title, url: article.url, published: article.published, tag_list: article.tags } };
  }
}
