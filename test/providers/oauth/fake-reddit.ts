// A local server speaking Reddit's OAuth API (https://www.reddit.com/dev/api, the OAuth2 wiki)
// for what Herald uses: the authorization-code flow with `duration=permanent` and a confidential
// client (HTTP Basic at /api/v1/access_token), refresh tokens that stay valid (Reddit issues no
// new one on refresh), 200 + `{error: "invalid_grant"}` for a spent code or revoked grant,
// /api/v1/me, subreddit listings (mine/subscriber, search), /r/{sr}/about with
// `submission_type` and `allow_images`, /api/v1/{sr}/post_requirements, link_flair_v2, the media
// asset lease and its storage form, /api/submit (`api_type=json`: refusals as HTTP 200 with
// `json.errors`: SUBREDDIT_NOEXIST, NO_SELFS, NO_LINKS, ALREADY_SUB with resubmit=false,
// SUBMIT_VALIDATION_FLAIR_REQUIRED, RATELIMIT with its wait in words), image posts answered without
// an id (found in /user/{name}/submitted), /api/comment, /api/info, and 401 for a dead token.
import { randomBytes } from 'node:crypto';
import { bearer, FakeServer, type FakeAnswer, type FakeRequest } from './fake-server.ts';

type RedditUser = { id: string; name: string };

export type FakeSubreddit = {
  name: string;
  submission_type: 'any' | 'link' | 'self';
  allow_images: boolean;
  over18?: boolean;
  flairs?: Array<{ id: string; text: string; text_editable: boolean }>;
  requirements?: Record<string, unknown>;
};

export type FakeThing = {
  name: string;
  id: string;
  kind: 't3' | 't1';
  author: string;
  subreddit: string;
  title: string;
  post_kind: string;
  text: string;
  url: string | null;
  parent: string | null;
  flair_id: string | null;
  nsfw: boolean;
  spoiler: boolean;
  score: number;
  num_comments: number;
  created_utc: number;
};

const UA = /^[^:\s]+:[^:\s]+:[^:\s]+( \(by \/u\/[A-Za-z0-9_-]+\))?$/;

export class FakeReddit extends FakeServer {
  clientId = 'reddit-client-id';
  clientSecret = 'reddit-client-secret';
  expiresIn = 3600;
  refuseRefresh = false;
  refreshes = 0;
  /** The next submit is refused with RATELIMIT. */
  rateLimitNextSubmit = false;
  signedIn: RedditUser = { id: 'k3x9q', name: 'herald_tester' };
  followers = 12;
  readonly subreddits = new Map<string, FakeSubreddit>();
  readonly things: FakeThing[] = [];
  readonly uploads = new Map<string, { size: number; type: string }>();
  /** The User-Agents seen. */
  readonly agents = new Set<string>();
  #codes = new Map<string, { redirectUri: string; user: RedditUser }>();
  #access = new Map<string, RedditUser>();
  #refresh = new Map<string, RedditUser>();
  #seq = 1000;

  constructor() {
    super();
    this.resetSubreddits();
  }

  resetSubreddits(): void {
    this.subreddits.clear();
    this.subreddits.set('heraldtest', {
      name: 'HeraldTest',
      submission_type: 'any',
      allow_images: true,
      flairs: [
        { id: 'f1a2b3c4-0000-1111-2222-333344445555', text: 'Announcement', text_editable: false },
        { id: 'f9e8d7c6-0000-1111-2222-333344445555', text: 'Discussion', text_editable: true },
      ],
    });
    this.subreddits.set('linksonly', { name: 'LinksOnly', submission_type: 'link', allow_images: false });
    this.subreddits.set('flairfirst', {
      name: 'FlairFirst',
      submission_type: 'self',
      allow_images: false,
      flairs: [{ id: 'aaaa1111-0000-1111-2222-333344445555', text: 'Question', text_editable: false }],
      requirements: { is_flair_required: true, title_text_min_length: 10, body_restriction_policy: 'required' },
    });
  }

  override reset(): void {
    super.reset();
    this.things.length = 0;
    this.uploads.clear();
    this.agents.clear();
    this.refreshes = 0;
    this.refuseRefresh = false;
    this.rateLimitNextSubmit = false;
    this.resetSubreddits();
  }

  /** Revokes every token the fake issued (the person removed the app in their Reddit preferences). */
  revokeAll(): void {
    this.#access.clear();
    this.#refresh.clear();
  }

  #id(): string {
    return (this.#seq++).toString(36);
  }

  #issue(user: RedditUser, refresh: boolean): FakeAnswer {
    const access = `rat-${randomBytes(12).toString('hex')}`;
    this.#access.set(access, user);
    const body: Record<string, unknown> = {
      access_token: access,
      token_type: 'bearer',
      expires_in: this.expiresIn,
      scope: 'identity submit read flair mysubreddits',
    };
    if (refresh) {
      const token = `rrt-${randomBytes(12).toString('hex')}`;
      this.#refresh.set(token, user);
      body.refresh_token = token;
    }
    return { status: 200, body };
  }

  #listing(children: unknown[]): FakeAnswer {
    return { status: 200, body: { kind: 'Listing', data: { after: null, before: null, dist: children.length, children } } };
  }

  #about(sr: FakeSubreddit) {
    return {
      kind: 't5',
      data: {
        display_name: sr.name,
        title: `${sr.name} on Reddit`,
        subscribers: 4200,
        submission_type: sr.submission_type,
        allow_images: sr.allow_images,
        over18: sr.over18 ?? false,
        user_is_banned: false,
        subreddit_type: 'public',
      },
    };
  }

  #errors(...errors: Array<[string, string, string]>): FakeAnswer {
    return { status: 200, body: { json: { errors } } };
  }

  protected async handle(req: FakeRequest): Promise<FakeAnswer> {
    if (req.method === 'GET' && req.path === '/api/v1/authorize') {
      const q = req.query;
      if (q.get('client_id') !== this.clientId || q.get('response_type') !== 'code' || q.get('duration') !== 'permanent')
        return { status: 400, body: 'bad authorize request' };
      if (!q.get('scope')?.split(' ').includes('submit')) return { status: 400, body: 'invalid scope' };
      const code = randomBytes(8).toString('hex');
      this.#codes.set(code, { redirectUri: q.get('redirect_uri')!, user: { ...this.signedIn } });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('state', q.get('state')!);
      back.searchParams.set('code', code);
      return { status: 302, headers: { location: back.toString() } };
    }
    // The media storage answers anyone who holds a lease.
    if (req.method === 'POST' && req.path === '/media-upload') return this.#store(req);
    // The API (not the person's browser at the authorize page) wants a descriptive User-Agent; Reddit throttles the rest.
    this.agents.add(String(req.headers['user-agent'] ?? ''));
    if (!UA.test(String(req.headers['user-agent'] ?? ''))) return { status: 429, body: { message: 'Too Many Requests', error: 429 } };
    if (req.method === 'POST' && req.path === '/api/v1/access_token') {
      const expected = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return { status: 401, body: { message: 'Unauthorized', error: 401 } };
      const f = req.form;
      if (f.get('grant_type') === 'authorization_code') {
        const code = this.#codes.get(f.get('code') ?? '');
        this.#codes.delete(f.get('code') ?? '');
        if (!code || code.redirectUri !== f.get('redirect_uri')) return { status: 200, body: { error: 'invalid_grant' } };
        return this.#issue(code.user, true);
      }
      if (f.get('grant_type') === 'refresh_token') {
        const user = this.#refresh.get(f.get('refresh_token') ?? '');
        if (!user || this.refuseRefresh) return { status: 200, body: { error: 'invalid_grant' } };
        this.refreshes++;
        // Reddit keeps the refresh token: the answer carries a new access token only.
        return this.#issue(user, false);
      }
      return { status: 200, body: { error: 'unsupported_grant_type' } };
    }
    const user = this.#access.get(bearer(req) ?? '');
    if (!user) return { status: 401, body: { message: 'Unauthorized', error: 401 } };
    if (req.method === 'GET' && req.path === '/api/v1/me')
      return {
        status: 200,
        body: {
          id: user.id,
          name: user.name,
          icon_img: 'https://styles.redditmedia.com/a.png',
          subreddit: { subscribers: this.followers },
        },
      };
    if (req.method === 'GET' && req.path === '/subreddits/mine/subscriber')
      return this.#listing([...this.subreddits.values()].map((sr) => this.#about(sr)));
    if (req.method === 'GET' && req.path === '/subreddits/search') {
      const q = (req.query.get('q') ?? '').toLowerCase();
      return this.#listing([...this.subreddits.values()].filter((sr) => sr.name.toLowerCase().includes(q)).map((sr) => this.#about(sr)));
    }
    let m = /^\/r\/([^/]+)\/about$/.exec(req.path);
    if (req.method === 'GET' && m) {
      const sr = this.subreddits.get(m[1]!.toLowerCase());
      // An unknown subreddit's about page answers with a search listing, as Reddit does.
      return sr ? { status: 200, body: this.#about(sr) } : this.#listing([]);
    }
    m = /^\/api\/v1\/([^/]+)\/post_requirements$/.exec(req.path);
    if (req.method === 'GET' && m) {
      const sr = this.subreddits.get(m[1]!.toLowerCase());
      if (!sr) return { status: 404, body: { message: 'Not Found', error: 404 } };
      return {
        status: 200,
        body: {
          is_flair_required: false,
          title_text_min_length: null,
          title_text_max_length: null,
          body_restriction_policy: 'none',
          ...sr.requirements,
        },
      };
    }
    m = /^\/r\/([^/]+)\/api\/link_flair_v2$/.exec(req.path);
    if (req.method === 'GET' && m) {
      const sr = this.subreddits.get(m[1]!.toLowerCase());
      if (!sr?.flairs) return { status: 403, body: { message: 'Forbidden', error: 403 } };
      return {
        status: 200,
        body: sr.flairs.map((f) => ({ ...f, type: 'text', background_color: '', text_color: 'dark', mod_only: false })),
      };
    }
    if (req.method === 'POST' && req.path === '/api/media/asset.json') {
      const key = `rte_images/${randomBytes(6).toString('hex')}`;
      this.uploads.set(key, { size: -1, type: req.form.get('mimetype') ?? '' });
      return {
        status: 200,
        body: {
          args: {
            action: `//${new URL(this.url).host}/media-upload`,
            fields: [
              { name: 'acl', value: 'private' },
              { name: 'key', value: key },
              { name: 'Content-Type', value: req.form.get('mimetype') },
              { name: 'x-amz-signature', value: 'c2lnbmF0dXJl' },
            ],
          },
          asset: { asset_id: key.split('/')[1], processing_state: 'incomplete', payload: { filepath: req.form.get('filepath') } },
        },
      };
    }
    if (req.method === 'POST' && req.path === '/api/submit') return this.#submit(req, user);
    if (req.method === 'POST' && req.path === '/api/comment') {
      const parent = this.things.find((t) => t.name === req.form.get('thing_id'));
      if (!parent) return this.#errors(['DELETED_LINK', 'that link has been deleted', 'parent']);
      const text = req.form.get('text') ?? '';
      if (!text) return this.#errors(['NO_TEXT', 'we need something here', 'text']);
      const id = this.#id();
      const post = parent.kind === 't3' ? parent : this.things.find((t) => t.name === `t3_${this.#rootOf(parent)}`)!;
      post.num_comments++;
      const thing: FakeThing = { ...this.#blank(user, post.subreddit), name: `t1_${id}`, id, kind: 't1', text, parent: parent.name };
      this.things.push(thing);
      return {
        status: 200,
        body: {
          json: {
            errors: [],
            data: {
              things: [
                {
                  kind: 't1',
                  data: {
                    id,
                    name: thing.name,
                    body: text,
                    parent_id: parent.name,
                    permalink: `/r/${post.subreddit}/comments/${post.id}/_/${id}/`,
                  },
                },
              ],
            },
          },
        },
      };
    }
    m = /^\/user\/([^/]+)\/submitted$/.exec(req.path);
    if (req.method === 'GET' && m)
      return this.#listing(
        this.things
          .filter((t) => t.kind === 't3' && t.author === m![1])
          .reverse()
          .map((t) => ({ kind: 't3', data: this.#data(t) })),
      );
    if (req.method === 'GET' && req.path === '/api/info') {
      const ids = (req.query.get('id') ?? '').split(',');
      if (ids.length > 100) return { status: 400, body: { message: 'Bad Request', error: 400 } };
      return this.#listing(this.things.filter((t) => ids.includes(t.name)).map((t) => ({ kind: t.kind, data: this.#data(t) })));
    }
    return { status: 404, body: { message: 'Not Found', error: 404 } };
  }

  #rootOf(thing: FakeThing): string {
    let current = thing;
    while (current.kind === 't1') current = this.things.find((t) => t.name === current.parent)!;
    return current.id;
  }

  #blank(user: RedditUser, subreddit: string): FakeThing {
    return {
      name: '',
      id: '',
      kind: 't3',
      author: user.name,
      subreddit,
      title: '',
      post_kind: '',
      text: '',
      url: null,
      parent: null,
      flair_id: null,
      nsfw: false,
      spoiler: false,
      score: 1,
      num_comments: 0,
      created_utc: Math.floor(Date.now() / 1000),
    };
  }

  #data(t: FakeThing) {
    return {
      id: t.id,
      name: t.name,
      author: t.author,
      subreddit: t.subreddit,
      title: t.title,
      score: t.score,
      ups: t.score,
      ...(t.kind === 't3' && { num_comments: t.num_comments, permalink: `/r/${t.subreddit}/comments/${t.id}/` }),
      created_utc: t.created_utc,
    };
  }

  async #store(req: FakeRequest): Promise<FakeAnswer> {
    const form = await req.multipart();
    const key = String(form.get('key') ?? '');
    const file = form.get('file');
    const lease = this.uploads.get(key);
    if (!lease || !(file instanceof Blob) || form.get('x-amz-signature') !== 'c2lnbmF0dXJl')
      return { status: 403, body: '<Error><Code>AccessDenied</Code></Error>', headers: { 'content-type': 'application/xml' } };
    lease.size = file.size;
    return {
      status: 201,
      body: `<PostResponse><Location>${this.url}/media-upload/${key}</Location><Key>${key}</Key></PostResponse>`,
      headers: { 'content-type': 'application/xml' },
    };
  }

  #submit(req: FakeRequest, user: RedditUser): FakeAnswer {
    const f = req.form;
    if (f.get('api_type') !== 'json') return { status: 200, body: { jquery: [] } };
    if (this.rateLimitNextSubmit) {
      this.rateLimitNextSubmit = false;
      return this.#errors([
        'RATELIMIT',
        "Looks like you've been doing that a lot. Take a break for 5 minutes before trying again.",
        'ratelimit',
      ]);
    }
    const sr = this.subreddits.get((f.get('sr') ?? '').toLowerCase());
    if (!sr) return this.#errors(['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']);
    const title = f.get('title') ?? '';
    if (!title) return this.#errors(['NO_TEXT', 'we need something here', 'title']);
    if (title.length > 300) return this.#errors(['TOO_LONG', 'this is too long (max: 300)', 'title']);
    const kind = f.get('kind') ?? '';
    if (kind === 'self' && sr.submission_type === 'link')
      return this.#errors(['NO_SELFS', "that subreddit doesn't allow text posts", 'sr']);
    if (kind !== 'self' && sr.submission_type === 'self') return this.#errors(['NO_LINKS', 'that subreddit only allows text posts', 'sr']);
    if (sr.requirements?.is_flair_required && !f.get('flair_id'))
      return this.#errors(['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair']);
    const url = f.get('url');
    if (kind === 'link' && f.get('resubmit') === 'false' && this.things.some((t) => t.subreddit === sr.name && t.url === url))
      return this.#errors(['ALREADY_SUB', 'that link has already been submitted', 'url']);
    if (kind === 'image') {
      const key = url?.replace(/^.*\/media-upload\//, '') ?? '';
      if (!sr.allow_images) return this.#errors(['NO_IMAGES', 'images are not allowed in this subreddit', 'sr']);
      if ((this.uploads.get(key)?.size ?? -1) <= 0) return this.#errors(['BAD_URL', 'you should check that url', 'url']);
    }
    const id = this.#id();
    const thing: FakeThing = {
      ...this.#blank(user, sr.name),
      name: `t3_${id}`,
      id,
      title,
      post_kind: kind,
      text: f.get('text') ?? '',
      url: url ?? null,
      flair_id: f.get('flair_id'),
      nsfw: f.get('nsfw') === 'true',
      spoiler: f.get('spoiler') === 'true',
    };
    this.things.push(thing);
    // Image posts are processed after the answer: Reddit names no post, only where to wait for it.
    if (kind === 'image')
      return {
        status: 200,
        body: {
          json: {
            errors: [],
            data: {
              user_submitted_page: `https://www.reddit.com/user/${user.name}/submitted/`,
              websocket_url: 'wss://ws.redditmedia.com/x',
            },
          },
        },
      };
    return {
      status: 200,
      body: {
        json: { errors: [], data: { url: `https://www.reddit.com/r/${sr.name}/comments/${id}/t/`, drafts_count: 0, id, name: `t3_${id}` } },
      },
    };
  }
}
