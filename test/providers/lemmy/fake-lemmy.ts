// A local server speaking Lemmy 0.19's HTTP API (/api/v3, join-lemmy.org/api) for what Herald
// uses: POST /user/login (password, two-factor code) issuing a JWT sent as a bearer token,
// GET /site's `my_user`, communities by `name` or `name@host`, the account's subscriptions and a
// community search, POST /post (title 3–200 characters on one line, url, body, nsfw), POST
// /comment with `parent_id`, the counts of posts, comments and people, and Lemmy's errors as
// `{error: "<code>"}`: incorrect_login (401), missing_totp_token, not_logged_in for a session it
// ended, couldnt_find_community (404), invalid_post_title, and rate_limit_error once an
// account exceeds the instance's post limit (6 per window by default).
import { randomBytes } from 'node:crypto';
import { bearer, FakeServer, type FakeAnswer, type FakeRequest } from '../oauth/fake-server.ts';

export type FakeLemmyPost = {
  id: number;
  name: string;
  community_id: number;
  url: string | null;
  body: string | null;
  nsfw: boolean;
  score: number;
  upvotes: number;
  comments: number;
};
export type FakeLemmyComment = { id: number; post_id: number; parent_id: number | null; content: string; path: string; score: number };

type Community = { id: number; name: string; host: string; title: string; nsfw: boolean; subscribed: boolean };

export class FakeLemmy extends FakeServer {
  username = 'herald_tester';
  password = 'correct horse battery staple';
  personId = 42;
  /** When set, the account signs in with this two-factor code too. */
  totpCode: string | null = null;
  /** Lifetime of the session tokens issued (seconds), as an `exp` claim; null issues tokens without one (Lemmy 0.19). */
  sessionLifetime: number | null = null;
  /** Posts an account may make before the instance answers rate_limit_error. */
  postLimit = 6;
  logins = 0;
  readonly posts: FakeLemmyPost[] = [];
  readonly comments: FakeLemmyComment[] = [];
  readonly communities: Community[] = [
    { id: 7, name: 'technology', host: 'lemmy.test', title: 'Technology', nsfw: false, subscribed: true },
    { id: 9, name: 'launches', host: 'other.example', title: 'Launches everywhere', nsfw: false, subscribed: false },
  ];
  #sessions = new Set<string>();
  #seq = 100;

  override reset(): void {
    super.reset();
    this.posts.length = 0;
    this.comments.length = 0;
    this.totpCode = null;
    this.sessionLifetime = null;
    this.postLimit = 6;
    this.logins = 0;
  }

  /** Ends every session (an admin logged the account out, or the instance rotated its secret). */
  endSessions(): void {
    this.#sessions.clear();
  }

  get host(): string {
    return new URL(this.url).host;
  }

  #jwt(): string {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = {
      sub: this.personId,
      iss: this.host,
      iat: now,
      ...(this.sessionLifetime !== null && { exp: now + this.sessionLifetime }),
    };
    const jwt = `${part({ typ: 'JWT', alg: 'HS256' })}.${part(claims)}.${randomBytes(16).toString('base64url')}`;
    this.#sessions.add(jwt);
    return jwt;
  }

  #error(error: string, status = 400): FakeAnswer {
    return { status, body: { error } };
  }

  #communityView(c: Community) {
    return {
      community: {
        id: c.id,
        name: c.name,
        title: c.title,
        nsfw: c.nsfw,
        actor_id: `https://${c.host}/c/${c.name}`,
        local: c.host === 'lemmy.test',
        posting_restricted_to_mods: false,
      },
      subscribed: c.subscribed ? 'Subscribed' : 'NotSubscribed',
      counts: { subscribers: 1200, posts: 10, comments: 30 },
    };
  }

  #postView(p: FakeLemmyPost) {
    return {
      post: {
        id: p.id,
        name: p.name,
        url: p.url,
        body: p.body,
        nsfw: p.nsfw,
        community_id: p.community_id,
        creator_id: this.personId,
        ap_id: `https://lemmy.test/post/${p.id}`,
      },
      counts: { post_id: p.id, comments: p.comments, score: p.score, upvotes: p.upvotes, downvotes: p.upvotes - p.score },
    };
  }

  protected handle(req: FakeRequest): FakeAnswer {
    const path = req.path.replace(/^\/api\/v3/, '');
    if (req.method === 'POST' && path === '/user/login') {
      this.logins++;
      const body = req.json;
      if (body.username_or_email !== this.username || body.password !== this.password) return this.#error('incorrect_login', 401);
      if (this.totpCode !== null) {
        if (!body.totp_2fa_token) return this.#error('missing_totp_token');
        if (body.totp_2fa_token !== this.totpCode) return this.#error('incorrect_totp_token');
      }
      return { status: 200, body: { jwt: this.#jwt(), registration_created: false, verify_email_sent: false } };
    }
    const jwt = bearer(req);
    if (!jwt || !this.#sessions.has(jwt)) return this.#error('not_logged_in');
    if (req.method === 'GET' && path === '/site')
      return {
        status: 200,
        body: {
          site_view: { site: { name: 'Lemmy Test' } },
          my_user: {
            local_user_view: {
              person: {
                id: this.personId,
                name: this.username,
                display_name: 'Herald Tester',
                avatar: null,
                actor_id: `https://lemmy.test/u/${this.username}`,
              },
              local_user: { id: 1 },
            },
          },
        },
      };
    if (req.method === 'GET' && path === '/community') {
      const [name, host = 'lemmy.test'] = (req.query.get('name') ?? '').split('@');
      const c =
        this.communities.find((x) => x.name === name && x.host === host) ??
        (req.query.get('id') ? this.communities.find((x) => x.id === Number(req.query.get('id'))) : undefined);
      return c
        ? { status: 200, body: { community_view: this.#communityView(c), moderators: [], discussion_languages: [] } }
        : this.#error('couldnt_find_community', 404);
    }
    if (req.method === 'GET' && path === '/community/list')
      return {
        status: 200,
        body: {
          communities: this.communities
            .filter((c) => req.query.get('type_') !== 'Subscribed' || c.subscribed)
            .map((c) => this.#communityView(c)),
        },
      };
    if (req.method === 'GET' && path === '/search') {
      const q = (req.query.get('q') ?? '').toLowerCase();
      const found = this.communities.filter((c) => `${c.name} ${c.title}`.toLowerCase().includes(q)).map((c) => this.#communityView(c));
      return { status: 200, body: { type_: 'Communities', communities: found, posts: [], comments: [], users: [] } };
    }
    if (req.method === 'POST' && path === '/post') {
      const b = req.json;
      if (this.posts.length >= this.postLimit) return this.#error('rate_limit_error');
      const name = String(b.name ?? '');
      if (name.trim().length < 3 || name.length > 200 || /[\n\r]/.test(name)) return this.#error('invalid_post_title');
      if (!this.communities.some((c) => c.id === b.community_id)) return this.#error('couldnt_find_community', 404);
      if (typeof b.body === 'string' && b.body.length > 50_000) return this.#error('invalid_body_field');
      const post: FakeLemmyPost = {
        id: this.#seq++,
        name,
        community_id: Number(b.community_id),
        url: typeof b.url === 'string' ? b.url : null,
        body: typeof b.body === 'string' ? b.body : null,
        nsfw: b.nsfw === true,
        score: 1,
        upvotes: 1,
        comments: 0,
      };
      this.posts.push(post);
      return { status: 200, body: { post_view: this.#postView(post) } };
    }
    if (req.method === 'POST' && path === '/comment') {
      const b = req.json;
      const post = this.posts.find((p) => p.id === b.post_id);
      if (!post) return this.#error('couldnt_find_post', 404);
      const parent = b.parent_id === undefined ? null : this.comments.find((c) => c.id === b.parent_id);
      if (b.parent_id !== undefined && (!parent || parent.post_id !== post.id)) return this.#error('couldnt_find_comment', 404);
      const content = String(b.content ?? '');
      if (!content || content.length > 10_000) return this.#error('invalid_body_field');
      const id = this.#seq++;
      const comment: FakeLemmyComment = {
        id,
        post_id: post.id,
        parent_id: parent?.id ?? null,
        content,
        path: `${parent ? parent.path : '0'}.${id}`,
        score: 1,
      };
      this.comments.push(comment);
      post.comments++;
      return {
        status: 200,
        body: {
          comment_view: {
            comment: { ...comment, ap_id: `https://lemmy.test/comment/${id}` },
            counts: { score: 1, upvotes: 1, child_count: 0 },
          },
          recipient_ids: [],
        },
      };
    }
    if (req.method === 'GET' && path === '/post') {
      const post = this.posts.find((p) => p.id === Number(req.query.get('id')));
      return post
        ? { status: 200, body: { post_view: this.#postView(post), community_view: {}, moderators: [], cross_posts: [] } }
        : this.#error('couldnt_find_post', 404);
    }
    if (req.method === 'GET' && path === '/comment') {
      const c = this.comments.find((x) => x.id === Number(req.query.get('id')));
      if (!c) return this.#error('couldnt_find_comment', 404);
      const children = this.comments.filter((x) => x.parent_id === c.id).length;
      return { status: 200, body: { comment_view: { comment: c, counts: { score: c.score, upvotes: c.score, child_count: children } } } };
    }
    if (req.method === 'GET' && path === '/user' && Number(req.query.get('person_id')) === this.personId)
      return {
        status: 200,
        body: {
          person_view: { person: { id: this.personId }, counts: { post_count: this.posts.length, comment_count: this.comments.length } },
          posts: [],
          comments: [],
        },
      };
    return this.#error('not_found', 404);
  }
}
