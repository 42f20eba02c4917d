// A local server speaking TikTok's APIs (open.tiktokapis.com, and www.tiktok.com's authorize page)
// for what Herald uses: the authorization-code flow and refresh at /v2/oauth/token/ (both
// lifetimes in the answer; errors as OAuth's `{error, error_description}`), the Content Posting
// API's direct post: creator_info/query, video/init with FILE_UPLOAD (chunk rules checked) and the
// chunk PUTs in order to the upload URL, content/init for photos by PULL_FROM_URL (only from
// verified URL prefixes), status/fetch going PROCESSING_* then PUBLISH_COMPLETE or FAILED, the
// init rate limit (6 a minute per token) and the daily post cap; and the Display API's video
// query and user info for numbers. Errors are `{data: {}, error: {code, message, log_id}}`;
// public post ids are 64-bit numbers written as JSON numbers, as TikTok does.
import { randomBytes } from 'node:crypto';
import { bearer, FakeServer, type FakeAnswer, type FakeRequest } from './fake-server.ts';

const MB = 1024 * 1024;
type User = { openId: string; username: string; nickname: string };
type Token = { user: User; scopes: string[]; inits: number };
export type FakeTiktokPost = {
  publishId: string;
  owner: string;
  kind: 'video' | 'photo';
  postInfo: Record<string, unknown>;
  sourceInfo: Record<string, unknown>;
  /** Video bytes received so far, in order. */
  received: Buffer[];
  chunkRanges: string[];
  uploaded: boolean;
  polls: number;
  /** The public id, once published (a 64-bit number as digits). */
  postId: string | null;
};

const tiktokError = (status: number, code: string, message: string): FakeAnswer => ({
  status,
  body: { data: {}, error: { code, message, log_id: '20261128000000ABCDEF' } },
});
const ok = (data: unknown): FakeAnswer => ({
  status: 200,
  body: { data, error: { code: 'ok', message: '', log_id: '20261128000000ABCDEF' } },
});

export class FakeTiktok extends FakeServer {
  clientKey = 'awtiktokclientkey';
  clientSecret = 'tiktok-client-secret';
  expiresIn = 86_400;
  refreshExpiresIn = 31_536_000;
  refuseRefresh = false;
  refreshes = 0;
  signedIn: User = { openId: '-000OhZ5kXUW1cNGjBQZ0C5Gf9ML7w5u', username: 'herald.tok', nickname: 'Herald on TikTok' };
  privacyLevels = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
  commentDisabled = false;
  duetDisabled = false;
  stitchDisabled = true;
  maxVideoSeconds = 300;
  /** Status checks a publish stays PROCESSING_* before it completes. */
  processingPolls = 2;
  /** The fail_reason the next publish ends with, if any. */
  failNext: string | null = null;
  /** Posts per day before spam_risk_too_many_posts. */
  dailyCap = 15;
  /** URL prefixes the app's owner verified for PULL_FROM_URL. */
  verifiedPrefixes: string[] = [];
  /** Scopes a sign-in grants of those asked (a person may untick some). */
  grant: ((scope: string) => boolean) | null = null;
  readonly posts: FakeTiktokPost[] = [];
  /** Video stats by public id. */
  readonly stats = new Map<string, Record<string, number>>();
  followers = 0;
  #codes = new Map<string, { redirectUri: string; scopes: string[] }>();
  #tokens = new Map<string, Token>();
  #refresh = new Map<string, { user: User; scopes: string[] }>();
  #next = 7_311_000_000_000_000_000n;

  override reset(): void {
    super.reset();
    this.posts.length = 0;
    this.stats.clear();
    this.refreshes = 0;
    this.failNext = null;
    this.grant = null;
    for (const token of this.#tokens.values()) token.inits = 0;
  }

  #issue(user: User, scopes: string[]): FakeAnswer {
    const access = `act.${randomBytes(16).toString('hex')}`;
    const refresh = `rft.${randomBytes(16).toString('hex')}`;
    this.#tokens.set(access, { user, scopes, inits: 0 });
    this.#refresh.set(refresh, { user, scopes });
    return {
      status: 200,
      body: {
        access_token: access,
        expires_in: this.expiresIn,
        open_id: user.openId,
        refresh_expires_in: this.refreshExpiresIn,
        refresh_token: refresh,
        scope: scopes.join(','),
        token_type: 'Bearer',
      },
    };
  }

  protected handle(req: FakeRequest): FakeAnswer {
    if (req.method === 'GET' && req.path === '/v2/auth/authorize/') {
      const q = req.query;
      const scopes = (q.get('scope') ?? '').split(',');
      if (q.get('client_key') !== this.clientKey || q.get('response_type') !== 'code' || !scopes.includes('video.publish'))
        return { status: 400, body: 'bad authorize request' };
      const code = randomBytes(8).toString('hex');
      this.#codes.set(code, { redirectUri: q.get('redirect_uri')!, scopes: scopes.filter((s) => this.grant?.(s) ?? true) });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('scopes', scopes.join(','));
      back.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: back.toString() } };
    }
    if (req.method === 'POST' && req.path === '/v2/oauth/token/') {
      const f = req.form;
      const refused = (error: string, description: string): FakeAnswer => ({
        status: 200,
        body: { error, error_description: description, log_id: '20261128000000TOKEN' },
      });
      if (f.get('client_key') !== this.clientKey || f.get('client_secret') !== this.clientSecret)
        return refused('invalid_client', 'Client key or secret is incorrect.');
      if (f.get('grant_type') === 'authorization_code') {
        const code = this.#codes.get(f.get('code') ?? '');
        this.#codes.delete(f.get('code') ?? '');
        if (!code || code.redirectUri !== f.get('redirect_uri')) return refused('invalid_grant', 'Authorization code is expired.');
        return this.#issue(this.signedIn, code.scopes);
      }
      if (f.get('grant_type') === 'refresh_token') {
        const grant = this.#refresh.get(f.get('refresh_token') ?? '');
        if (!grant || this.refuseRefresh) return refused('invalid_grant', 'Refresh token is invalid or expired.');
        this.refreshes++;
        return this.#issue(grant.user, grant.scopes);
      }
      return refused('invalid_request', 'The grant type is not supported.');
    }
    if (req.method === 'PUT' && req.path === '/upload/') return this.#chunk(req);
    const token = this.#tokens.get(bearer(req) ?? '');
    if (!token) return tiktokError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
    const needs = (scope: string) =>
      token.scopes.includes(scope)
        ? null
        : tiktokError(401, 'scope_not_authorized', `The user did not authorize the scope required for completing this request.`);
    if (req.method === 'POST' && req.path === '/v2/post/publish/creator_info/query/') {
      const refused = needs('video.publish');
      if (refused) return refused;
      return ok({
        creator_avatar_url: 'https://p16-sign.tiktokcdn.com/avatar.jpeg',
        creator_username: token.user.username,
        creator_nickname: token.user.nickname,
        privacy_level_options: this.privacyLevels,
        comment_disabled: this.commentDisabled,
        duet_disabled: this.duetDisabled,
        stitch_disabled: this.stitchDisabled,
        max_video_post_duration_sec: this.maxVideoSeconds,
      });
    }
    if (req.method === 'POST' && (req.path === '/v2/post/publish/video/init/' || req.path === '/v2/post/publish/content/init/')) {
      const refused = needs('video.publish');
      if (refused) return refused;
      token.inits++;
      if (token.inits > 6) return tiktokError(429, 'rate_limit_exceeded', 'API rate limit exceeded, please try again later.');
      return req.path.includes('/video/') ? this.#initVideo(req, token) : this.#initPhotos(req, token);
    }
    if (req.method === 'POST' && req.path === '/v2/post/publish/status/fetch/') return this.#status(req, token);
    if (req.method === 'POST' && req.path === '/v2/video/query/') {
      const refused = needs('video.list');
      if (refused) return refused;
      const ids = ((req.json.filters as { video_ids?: unknown[] } | undefined)?.video_ids ?? []).map(String);
      if (ids.length === 0 || ids.length > 20) return tiktokError(400, 'invalid_params', 'video_ids must hold 1 to 20 ids.');
      const own = ids.filter((id) => this.posts.some((p) => p.postId === id && p.owner === token.user.openId));
      // Ids are 64-bit numbers, written unquoted as TikTok does.
      const videos = own.map((id) => {
        const s = this.stats.get(id) ?? {};
        const counts = ['view_count', 'like_count', 'comment_count', 'share_count']
          .filter((k) => s[k] !== undefined)
          .map((k) => `"${k}":${s[k]}`);
        return `{"id":${id}${counts.length ? `,${counts.join(',')}` : ''}}`;
      });
      return {
        status: 200,
        body: `{"data":{"videos":[${videos.join(',')}],"cursor":0,"has_more":false},"error":{"code":"ok","message":"","log_id":"L"}}`,
      };
    }
    if (req.method === 'GET' && req.path === '/v2/user/info/') {
      const fields = (req.query.get('fields') ?? '').split(',');
      if (fields.some((f) => f.endsWith('_count'))) {
        const refused = needs('user.info.stats');
        if (refused) return refused;
      }
      const user: Record<string, unknown> = { open_id: token.user.openId };
      if (fields.includes('follower_count')) user.follower_count = this.followers;
      if (fields.includes('following_count')) user.following_count = 12;
      if (fields.includes('video_count')) user.video_count = this.posts.filter((p) => p.postId).length;
      return ok({ user });
    }
    return tiktokError(404, 'invalid_params', `Unknown path ${req.method} ${req.path}`);
  }

  #postCheck(req: FakeRequest, token: Token, titleMax: number, text: string): FakeAnswer | null {
    const info = (req.json.post_info ?? {}) as Record<string, unknown>;
    if (this.posts.filter((p) => p.owner === token.user.openId).length >= this.dailyCap)
      return tiktokError(403, 'spam_risk_too_many_posts', 'The daily post cap from the current user has been reached.');
    if (!this.privacyLevels.includes(String(info.privacy_level)))
      return tiktokError(403, 'privacy_level_option_mismatch', 'privacy_level is not among the options returned by creator info.');
    if (text.length > titleMax) return tiktokError(400, 'invalid_params', 'The title is too long.');
    return null;
  }

  #initVideo(req: FakeRequest, token: Token): FakeAnswer {
    const info = (req.json.post_info ?? {}) as Record<string, unknown>;
    const refused = this.#postCheck(req, token, 2200, String(info.title ?? ''));
    if (refused) return refused;
    if (this.duetDisabled && info.disable_duet !== true)
      return tiktokError(400, 'invalid_params', 'disable_duet must be true for this creator.');
    if (this.stitchDisabled && info.disable_stitch !== true)
      return tiktokError(400, 'invalid_params', 'disable_stitch must be true for this creator.');
    const source = (req.json.source_info ?? {}) as Record<string, unknown>;
    const size = Number(source.video_size);
    const chunk = Number(source.chunk_size);
    const count = Number(source.total_chunk_count);
    if (source.source !== 'FILE_UPLOAD' || !(size > 0)) return tiktokError(400, 'invalid_params', 'source_info is invalid.');
    const whole = chunk === size && count === 1;
    const chunked = chunk >= 5 * MB && chunk <= 64 * MB && count === Math.floor(size / chunk) && size - (count - 1) * chunk <= 128 * MB;
    if ((size < 5 * MB && !whole) || (size > 64 * MB && whole) || !(whole || chunked))
      return tiktokError(400, 'invalid_params', 'The chunk size or the total chunk count is invalid.');
    const post = this.#create(token, 'video', req);
    return ok({
      publish_id: post.publishId,
      upload_url: `${this.url}/upload/?upload_id=${post.publishId}&upload_token=${randomBytes(6).toString('hex')}`,
    });
  }

  #initPhotos(req: FakeRequest, token: Token): FakeAnswer {
    const info = (req.json.post_info ?? {}) as Record<string, unknown>;
    const refused = this.#postCheck(req, token, 90, String(info.title ?? ''));
    if (refused) return refused;
    if (String(info.description ?? '').length > 4000) return tiktokError(400, 'invalid_params', 'The description is too long.');
    const source = (req.json.source_info ?? {}) as Record<string, unknown>;
    const images = Array.isArray(source.photo_images) ? source.photo_images.map(String) : [];
    if (req.json.media_type !== 'PHOTO' || req.json.post_mode !== 'DIRECT_POST' || source.source !== 'PULL_FROM_URL')
      return tiktokError(400, 'invalid_params', 'Photo posts are PHOTO, DIRECT_POST, PULL_FROM_URL here.');
    if (images.length < 1 || images.length > 35) return tiktokError(400, 'invalid_params', 'photo_images must hold 1 to 35 URLs.');
    if (images.some((u) => !this.verifiedPrefixes.some((p) => u.startsWith(p))))
      return tiktokError(403, 'url_ownership_unverified', 'The domain or URL prefix of the media URL is not verified.');
    const post = this.#create(token, 'photo', req);
    post.uploaded = true;
    return ok({ publish_id: post.publishId });
  }

  #create(token: Token, kind: 'video' | 'photo', req: FakeRequest): FakeTiktokPost {
    const post: FakeTiktokPost = {
      publishId: `${kind === 'video' ? 'v_pub_file' : 'p_pub_url'}~v2-1.${randomBytes(8).toString('hex')}`,
      owner: token.user.openId,
      kind,
      postInfo: (req.json.post_info ?? {}) as Record<string, unknown>,
      sourceInfo: (req.json.source_info ?? {}) as Record<string, unknown>,
      received: [],
      chunkRanges: [],
      uploaded: false,
      polls: 0,
      postId: null,
    };
    this.posts.push(post);
    return post;
  }

  #chunk(req: FakeRequest): FakeAnswer {
    const post = this.posts.find((p) => p.publishId === req.query.get('upload_id'));
    if (!post || post.uploaded) return tiktokError(404, 'invalid_params', 'The upload URL is invalid or expired.');
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
    const size = Number(post.sourceInfo.video_size);
    const received = post.received.reduce((n, b) => n + b.length, 0);
    if (!range || Number(range[3]) !== size || Number(range[1]) !== received || Number(range[2]) - Number(range[1]) + 1 !== req.raw.length)
      return { status: 416, body: '' };
    if (!['video/mp4', 'video/quicktime', 'video/webm'].includes(String(req.headers['content-type']))) return { status: 400, body: '' };
    post.received.push(req.raw);
    post.chunkRanges.push(range[0].slice(6));
    if (received + req.raw.length < size) return { status: 206, body: '' };
    post.uploaded = true;
    return { status: 201, body: '' };
  }

  #status(req: FakeRequest, token: Token): FakeAnswer {
    const post = this.posts.find((p) => p.publishId === req.json.publish_id && p.owner === token.user.openId);
    if (!post) return tiktokError(400, 'invalid_publish_id', 'The publish_id does not exist.');
    const processing = post.kind === 'video' ? 'PROCESSING_UPLOAD' : 'PROCESSING_DOWNLOAD';
    if (!post.uploaded) return ok({ status: processing, uploaded_bytes: post.received.reduce((n, b) => n + b.length, 0) });
    post.polls++;
    if (post.polls <= this.processingPolls) return ok({ status: processing });
    if (this.failNext) {
      const reason = this.failNext;
      this.failNext = null;
      this.posts.splice(this.posts.indexOf(post), 1);
      return ok({ status: 'FAILED', fail_reason: reason });
    }
    // Private posts have no public id.
    if (!post.postId && post.postInfo.privacy_level !== 'SELF_ONLY') post.postId = String((this.#next += 1n));
    return {
      status: 200,
      body: `{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[${post.postId ?? ''}]},"error":{"code":"ok","message":"","log_id":"L"}}`,
    };
  }
}
