// A local server speaking the Threads API (graph.threads.net) for what Herald uses: the OAuth
// authorization-code flow, the long-lived token exchange and refresh, /me, media containers
// (text, image, video, carousel) whose status goes IN_PROGRESS then FINISHED, threads_publish,
// permalinks, replies, the publishing quota, and Graph API error answers; and insights: a post's
// lifetime metrics (GET /{media}/insights) and the account's followers (GET /{user}/threads_insights),
// refused (code 10) to tokens granted without threads_manage_insights.
import { randomBytes } from 'node:crypto';
import { bearer, FakeServer, type FakeAnswer, type FakeRequest } from './fake-server.ts';

type User = { id: string; username: string; name: string; insights?: boolean };
type Container = { id: string; owner: string; params: Record<string, string>; polls: number; published: boolean };
export type FakeThread = {
  id: string;
  owner: string;
  text: string;
  media_type: string;
  image_urls: string[];
  reply_to_id: string | null;
  reply_control: string | null;
  permalink: string;
};

const graphError = (status: number, message: string, code: number, extra: Record<string, unknown> = {}): FakeAnswer => ({
  status,
  body: { error: { message, type: 'OAuthException', code, fbtrace_id: 'A1b2', ...extra } },
});

export class FakeThreads extends FakeServer {
  appId = '1234567890';
  appSecret = 'threads-app-secret';
  expiresIn = 5_183_944;
  refuseRefresh = false;
  refreshes = 0;
  /** Status checks a container stays IN_PROGRESS before it is FINISHED. */
  processingPolls = 1;
  quotaUsage = 0;
  quotaTotal = 250;
  /** Whether sign-ins grant threads_manage_insights when asked for it (a person may decline, an app may lack it). */
  grantInsights = true;
  /** Lifetime insights by post id (views, likes, replies, reposts, quotes, shares). */
  readonly insights = new Map<string, Record<string, number>>();
  followers = 0;
  signedIn: User = { id: '17841400000000001', username: 'herald.threads', name: 'Herald on Threads' };
  readonly threads: FakeThread[] = [];
  readonly containers = new Map<string, Container>();
  #codes = new Map<string, { redirectUri: string; user: User }>();
  #short = new Map<string, User>();
  #long = new Map<string, User>();
  #next = 18_000_000_000_000_000n;

  override reset(): void {
    super.reset();
    this.threads.length = 0;
    this.refreshes = 0;
    this.quotaUsage = 0;
    this.insights.clear();
    this.followers = 0;
    this.grantInsights = true;
  }

  #id(): string {
    this.#next += 1n;
    return String(this.#next);
  }

  #longLived(user: User): FakeAnswer {
    const token = `THAA${randomBytes(16).toString('hex')}`;
    this.#long.set(token, user);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: this.expiresIn } };
  }

  protected handle(req: FakeRequest): FakeAnswer {
    if (req.method === 'GET' && req.path === '/oauth/authorize') {
      const q = req.query;
      if (
        q.get('client_id') !== this.appId ||
        q.get('response_type') !== 'code' ||
        !['threads_basic,threads_content_publish', 'threads_basic,threads_content_publish,threads_manage_insights'].includes(
          q.get('scope') ?? '',
        )
      )
        return { status: 400, body: 'bad authorize request' };
      const code = randomBytes(8).toString('hex');
      const insights = this.grantInsights && q.get('scope')!.split(',').includes('threads_manage_insights');
      this.#codes.set(code, { redirectUri: q.get('redirect_uri')!, user: { ...this.signedIn, insights } });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', `${code}#_`);
      back.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: back.toString() } };
    }
    if (req.method === 'POST' && req.path === '/oauth/access_token') {
      const f = req.form;
      if (f.get('client_id') !== this.appId || f.get('client_secret') !== this.appSecret)
        return graphError(400, 'Error validating client secret.', 1);
      const code = this.#codes.get((f.get('code') ?? '').replace(/#_$/, ''));
      this.#codes.delete((f.get('code') ?? '').replace(/#_$/, ''));
      if (!code || code.redirectUri !== f.get('redirect_uri')) return graphError(400, 'Invalid verification code format.', 100);
      const token = `THQ${randomBytes(16).toString('hex')}`;
      this.#short.set(token, code.user);
      return { status: 200, body: { access_token: token, user_id: Number(code.user.id) } };
    }
    if (req.method === 'GET' && req.path === '/access_token') {
      const user = this.#short.get(req.query.get('access_token') ?? '');
      if (req.query.get('grant_type') !== 'th_exchange_token' || req.query.get('client_secret') !== this.appSecret || !user)
        return graphError(400, 'Invalid OAuth access token.', 190);
      return this.#longLived(user);
    }
    if (req.method === 'GET' && req.path === '/refresh_access_token') {
      const user = this.#long.get(req.query.get('access_token') ?? '');
      if (req.query.get('grant_type') !== 'th_refresh_token' || !user || this.refuseRefresh)
        return graphError(400, 'Error validating access token: Session has expired.', 190, { error_subcode: 463 });
      this.refreshes++;
      return this.#longLived(user);
    }
    const user = this.#long.get(bearer(req) ?? '');
    if (!user) return graphError(401, 'Invalid OAuth access token - Cannot parse access token', 190);
    const path = req.path.replace(/^\/v1\.0/, '');
    if (req.method === 'GET' && path === '/me')
      return {
        status: 200,
        body: {
          id: user.id,
          username: user.username,
          name: user.name,
          threads_profile_picture_url: 'https://scontent.cdninstagram.com/a.jpg',
        },
      };
    if (req.method === 'GET' && path === `/${user.id}/threads_publishing_limit`) {
      return {
        status: 200,
        body: {
          data: [
            {
              quota_usage: this.quotaUsage,
              config: { quota_total: this.quotaTotal, quota_duration: 86400 },
              reply_quota_usage: 0,
              reply_config: { quota_total: 1000, quota_duration: 86400 },
            },
          ],
        },
      };
    }
    if (req.method === 'POST' && path === `/${user.id}/threads`) {
      const params = Object.fromEntries(req.form);
      const type = params.media_type;
      if (type === 'IMAGE' && !params.image_url) return graphError(400, 'The parameter image_url is required.', 100);
      if (type === 'TEXT' && !params.text) return graphError(400, 'The parameter text is required.', 100);
      if ([...(params.text ?? '')].length > 500) return graphError(400, 'Param text must be at most 500 characters long.', 100);
      if (params.reply_to_id && !this.threads.some((t) => t.id === params.reply_to_id))
        return graphError(400, 'The reply target does not exist.', 100);
      if (type === 'CAROUSEL' && (params.children ?? '').split(',').some((c) => !this.containers.has(c)))
        return graphError(400, 'Invalid children.', 100);
      const id = this.#id();
      this.containers.set(id, { id, owner: user.id, params, polls: 0, published: false });
      return { status: 200, body: { id } };
    }
    if (req.method === 'POST' && path === `/${user.id}/threads_publish`) {
      const item = this.containers.get(req.form.get('creation_id') ?? '');
      if (!item || item.owner !== user.id) return graphError(400, 'The media container does not exist.', 24, { error_subcode: 4279009 });
      if (item.polls <= this.processingPolls)
        return graphError(400, 'The media is not ready for publishing, please wait for a moment', 9007, { error_subcode: 2207027 });
      if (item.published) return graphError(400, 'The media container was already published.', 10);
      if (this.quotaUsage >= this.quotaTotal) return graphError(400, 'Application request limit reached', 4);
      item.published = true;
      this.quotaUsage++;
      const children =
        item.params.media_type === 'CAROUSEL' ? item.params.children!.split(',').map((c) => this.containers.get(c)!) : [item];
      const id = this.#id();
      this.threads.push({
        id,
        owner: user.id,
        text: item.params.text ?? '',
        media_type: item.params.media_type!,
        image_urls: children.map((c) => c.params.image_url ?? c.params.video_url).filter((u): u is string => Boolean(u)),
        reply_to_id: item.params.reply_to_id ?? null,
        reply_control: item.params.reply_control ?? null,
        permalink: `https://www.threads.net/@${user.username}/post/${id.slice(-8)}`,
      });
      return { status: 200, body: { id } };
    }
    const insights = /^\/(\d+)\/(insights|threads_insights)$/.exec(path);
    if (req.method === 'GET' && insights) return this.#insights(user, insights[1]!, insights[2] === 'threads_insights', req.query);
    const node = /^\/(\d+)$/.exec(path);
    if (req.method === 'GET' && node) {
      const item = this.containers.get(node[1]!);
      if (item) {
        item.polls++;
        return {
          status: 200,
          body: { id: item.id, status: item.published ? 'PUBLISHED' : item.polls > this.processingPolls ? 'FINISHED' : 'IN_PROGRESS' },
        };
      }
      const thread = this.threads.find((t) => t.id === node[1]);
      if (thread) return { status: 200, body: { id: thread.id, permalink: thread.permalink } };
      return graphError(400, 'Unsupported get request.', 100);
    }
    return graphError(404, `Unknown path ${req.method} ${req.path}`, 803);
  }

  #insights(user: User, id: string, ofUser: boolean, query: URLSearchParams): FakeAnswer {
    if (!user.insights) return graphError(403, '(#10) Application does not have permission for this action', 10);
    const metrics = (query.get('metric') ?? '').split(',').filter(Boolean);
    if (ofUser) {
      if (id !== user.id) return graphError(400, 'Unsupported get request.', 100);
      const data = metrics
        .filter((name) => name === 'followers_count')
        .map((name) => ({ name, period: 'day', title: name, total_value: { value: this.followers }, id: `${id}/insights/${name}/day` }));
      return { status: 200, body: { data } };
    }
    const thread = this.threads.find((t) => t.id === id && t.owner === user.id);
    if (!thread)
      return graphError(
        400,
        `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        100,
        { error_subcode: 33 },
      );
    const counts = this.insights.get(id) ?? {};
    const data = metrics.map((name) => ({
      name,
      period: 'lifetime',
      values: [{ value: counts[name] ?? 0 }],
      title: name,
      id: `${id}/insights/${name}/lifetime`,
    }));
    return { status: 200, body: { data } };
  }
}
