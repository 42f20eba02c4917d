// A local server speaking X's API v2 (https://docs.x.com/x-api) for what Herald uses: the OAuth 2.0
// authorization-code flow with PKCE and a confidential client (HTTP Basic at the token endpoint),
// rotating single-use refresh tokens (counted, and held on request), /2/users/me, the v2 media upload (one request for images; initialize,
// append, finalize and STATUS polling for video), descriptions through POST /2/media/metadata
// (images and GIFs, 1,000 characters at most), POST /2/tweets with replies, and X's errors:
// duplicate text (403), rate limits (429 with x-rate-limit-reset) and expired tokens (401); and
// the numbers: GET /2/tweets?ids= with public_metrics (and non_public_metrics, given only for the
// token's own posts under 30 days old, as X does), deleted posts listed in `errors`, and
// /2/users/me's public_metrics.
import { createHash, randomBytes } from 'node:crypto';
import { bearer, FakeServer, type FakeAnswer, type FakeRequest } from './fake-server.ts';

type XUser = { id: string; username: string; name: string };

export type FakeTweet = {
  id: string;
  author_id: string;
  text: string;
  media_ids: string[];
  in_reply_to_tweet_id: string | null;
  reply_settings: string | null;
};

export class FakeX extends FakeServer {
  clientId = 'x-client-id';
  clientSecret = 'x-client-secret';
  /** Lifetime of the access tokens issued (X: two hours). */
  expiresIn = 7200;
  refuseRefresh = false;
  /** How many STATUS polls a video stays in progress. */
  processingPolls = 1;
  /** Refreshes granted. */
  refreshes = 0;
  /** Refresh requests received, granted or refused. */
  refreshCalls = 0;
  #held: { arrived: () => void; released: Promise<void> } | null = null;
  signedIn = { id: '1001', username: 'herald_test', name: 'Herald Test' };
  readonly tweets: FakeTweet[] = [];
  /** Numbers by tweet id: `public_metrics`, and `non_public_metrics` (given for the token's own posts under 30 days old). */
  readonly counts = new Map<string, { public: Record<string, number>; nonPublic?: Record<string, number> }>();
  followers = 0;
  readonly media = new Map<string, { type: string; size: number; chunks: number; polls: number; finalized: boolean; alt?: string }>();
  #codes = new Map<string, { challenge: string; redirectUri: string; user: XUser }>();
  #access = new Map<string, XUser>();
  #refresh = new Map<string, XUser>();
  #sequence = 0n;
  /** How long ago the next posts were made, as their ids tell (X's ids are snowflakes: milliseconds since 2010-11-04 in the high bits). */
  postedAgoMs = 0;

  override reset(): void {
    super.reset();
    this.tweets.length = 0;
    this.counts.clear();
    this.followers = 0;
    this.postedAgoMs = 0;
    this.refreshes = 0;
    this.refreshCalls = 0;
    this.#held = null;
  }

  /**
   * Holds refresh requests until `release` is called: `arrived` resolves when the first one is
   * here. The refresh token is checked (and spent) when the answer goes out, as X does once it answers.
   */
  holdRefreshes(): { arrived: Promise<void>; release(): void } {
    let arrived!: () => void;
    let release!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    this.#held = { arrived, released: new Promise<void>((resolve) => (release = resolve)) };
    return { arrived: arrival, release };
  }

  #id(ago = 0): string {
    this.#sequence = (this.#sequence + 1n) % 4096n;
    return String(((BigInt(Date.now() - ago) - 1_288_834_974_657n) << 22n) + this.#sequence);
  }

  #issue(user: XUser): FakeAnswer {
    const access = `xat_${randomBytes(12).toString('hex')}`;
    const refresh = `xrt_${randomBytes(12).toString('hex')}`;
    this.#access.set(access, user);
    this.#refresh.set(refresh, user);
    return {
      status: 200,
      body: {
        token_type: 'bearer',
        expires_in: this.expiresIn,
        access_token: access,
        scope: 'tweet.read tweet.write users.read media.write offline.access',
        refresh_token: refresh,
      },
    };
  }

  protected async handle(req: FakeRequest): Promise<FakeAnswer> {
    if (req.method === 'GET' && req.path === '/i/oauth2/authorize') {
      const q = req.query;
      if (q.get('client_id') !== this.clientId || q.get('code_challenge_method') !== 'S256' || !q.get('scope')?.includes('offline.access'))
        return { status: 400, body: 'bad authorize request' };
      const code = randomBytes(8).toString('hex');
      this.#codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, user: { ...this.signedIn } });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('state', q.get('state')!);
      back.searchParams.set('code', code);
      return { status: 302, headers: { location: back.toString() } };
    }
    if (req.method === 'POST' && req.path === '/2/oauth2/token') {
      const expected = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected)
        return { status: 401, body: { error: 'unauthorized_client', error_description: 'Missing valid authorization header' } };
      const f = req.form;
      if (f.get('grant_type') === 'authorization_code') {
        const code = this.#codes.get(f.get('code') ?? '');
        this.#codes.delete(f.get('code') ?? '');
        const challenge = createHash('sha256')
          .update(f.get('code_verifier') ?? '')
          .digest('base64url');
        if (!code || code.challenge !== challenge || code.redirectUri !== f.get('redirect_uri'))
          return {
            status: 400,
            body: { error: 'invalid_request', error_description: 'Value passed for the authorization code was invalid.' },
          };
        return this.#issue(code.user);
      }
      if (f.get('grant_type') === 'refresh_token') {
        this.refreshCalls++;
        if (this.#held) {
          this.#held.arrived();
          await this.#held.released;
        }
        // Single use: the refresh token dies with this request, granted or not.
        const user = this.#refresh.get(f.get('refresh_token') ?? '');
        this.#refresh.delete(f.get('refresh_token') ?? '');
        if (!user || this.refuseRefresh)
          return { status: 400, body: { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' } };
        this.refreshes++;
        return this.#issue(user);
      }
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
    const user = this.#access.get(bearer(req) ?? '');
    if (!user) return { status: 401, body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' } };
    if (req.method === 'GET' && req.path === '/2/users/me') {
      const fields = (req.query.get('user.fields') ?? '').split(',');
      const tweets = this.tweets.filter((t) => t.author_id === user.id).length;
      return {
        status: 200,
        body: {
          data: {
            id: user.id,
            name: user.name,
            username: user.username,
            ...(fields.includes('profile_image_url') && { profile_image_url: 'https://pbs.twimg.com/profile_images/1/a.jpg' }),
            ...(fields.includes('public_metrics') && {
              public_metrics: { followers_count: this.followers, following_count: 7, tweet_count: tweets, listed_count: 1, like_count: 3 },
            }),
          },
        },
      };
    }
    if (req.method === 'GET' && req.path === '/2/tweets') return this.#lookup(req, user);
    if (req.method === 'POST' && req.path === '/2/media/upload') {
      const form = await req.multipart();
      const file = form.get('media');
      if (!(file instanceof Blob) || form.get('media_category') !== 'tweet_image')
        return { status: 400, body: { title: 'Invalid Request', detail: 'media is required' } };
      const id = this.#id();
      this.media.set(id, { type: String(form.get('media_type')), size: file.size, chunks: 1, polls: 0, finalized: true });
      return { status: 200, body: { data: { id, media_key: `3_${id}`, size: file.size, expires_after_secs: 86400 } } };
    }
    if (req.method === 'POST' && req.path === '/2/media/upload/initialize') {
      const id = this.#id();
      this.media.set(id, { type: String(req.json.media_type), size: Number(req.json.total_bytes), chunks: 0, polls: 0, finalized: false });
      return { status: 200, body: { data: { id, media_key: `7_${id}`, expires_after_secs: 86400 } } };
    }
    const chunked = /^\/2\/media\/upload\/(\d+)\/(append|finalize)$/.exec(req.path);
    if (req.method === 'POST' && chunked) {
      const item = this.media.get(chunked[1]!);
      if (!item) return { status: 400, body: { title: 'Invalid Request', detail: 'unknown media id' } };
      if (chunked[2] === 'append') {
        const form = await req.multipart();
        if (Number(form.get('segment_index')) !== item.chunks) return { status: 400, body: { detail: 'segment out of order' } };
        item.chunks++;
        return { status: 200, body: { data: { expires_at: 0 } } };
      }
      item.finalized = true;
      return { status: 200, body: { data: { id: chunked[1], processing_info: { state: 'pending', check_after_secs: 0 } } } };
    }
    if (req.method === 'GET' && req.path === '/2/media/upload' && req.query.get('command') === 'STATUS') {
      const item = this.media.get(req.query.get('media_id') ?? '');
      if (!item) return { status: 400, body: { detail: 'unknown media id' } };
      item.polls++;
      const state = item.polls > this.processingPolls ? 'succeeded' : 'in_progress';
      return {
        status: 200,
        body: {
          data: {
            id: req.query.get('media_id'),
            processing_info: { state, ...(state !== 'succeeded' && { check_after_secs: 0, progress_percent: 50 }) },
          },
        },
      };
    }
    if (req.method === 'POST' && req.path === '/2/media/metadata') {
      if (!String(req.headers['content-type']).startsWith('application/json'))
        return { status: 415, body: { title: 'Unsupported Media Type', detail: 'application/json expected' } };
      const item = this.media.get(String(req.json.id ?? ''));
      const text = (req.json.metadata as { alt_text?: { text?: unknown } } | undefined)?.alt_text?.text;
      if (!item || !item.finalized) return { status: 400, body: { title: 'Invalid Request', detail: 'The media id is invalid.' } };
      if (typeof text !== 'string' || text.length === 0 || text.length > 1000) {
        return {
          status: 400,
          body: {
            title: 'Invalid Request',
            detail: 'One or more parameters to your request was invalid.',
            errors: [{ message: '$.metadata.alt_text.text must be 1 to 1000 characters' }],
          },
        };
      }
      if (!item.type.startsWith('image/'))
        return { status: 400, body: { title: 'Invalid Request', detail: 'Alt text is supported for images and GIFs only.' } };
      item.alt = text;
      return { status: 200, body: { data: { id: req.json.id, associated_metadata: { alt_text: { text } } } } };
    }
    if (req.method === 'POST' && req.path === '/2/tweets') {
      const text = String(req.json.text ?? '');
      if (this.tweets.some((t) => t.author_id === user.id && t.text === text)) {
        return {
          status: 403,
          body: {
            detail: 'You are not allowed to create a Tweet with duplicate content.',
            type: 'about:blank',
            title: 'Forbidden',
            status: 403,
          },
        };
      }
      const mediaIds = ((req.json.media as { media_ids?: string[] } | undefined)?.media_ids ?? []).map(String);
      if (mediaIds.some((m) => !this.media.get(m)?.finalized))
        return { status: 400, body: { title: 'Invalid Request', detail: 'Your media IDs are invalid.' } };
      const replyTo = (req.json.reply as { in_reply_to_tweet_id?: string } | undefined)?.in_reply_to_tweet_id ?? null;
      if (replyTo && !this.tweets.some((t) => t.id === replyTo))
        return { status: 400, body: { title: 'Invalid Request', detail: 'The tweet you are replying to does not exist.' } };
      const tweet: FakeTweet = {
        id: this.#id(this.postedAgoMs),
        author_id: user.id,
        text,
        media_ids: mediaIds,
        in_reply_to_tweet_id: replyTo,
        reply_settings: (req.json.reply_settings as string | undefined) ?? null,
      };
      this.tweets.push(tweet);
      return { status: 201, body: { data: { id: tweet.id, text, edit_history_tweet_ids: [tweet.id] } } };
    }
    return { status: 404, body: { title: 'Not Found Error', detail: `no route ${req.method} ${req.path}` } };
  }

  /** GET /2/tweets: up to 100 ids; what X no longer has is in `errors`, and so is a non-public field it does not give. */
  #lookup(req: FakeRequest, user: XUser): FakeAnswer {
    const ids = (req.query.get('ids') ?? '').split(',').filter(Boolean);
    if (ids.length === 0 || ids.length > 100)
      return {
        status: 400,
        body: {
          title: 'Invalid Request',
          detail: 'One or more parameters to your request was invalid.',
          errors: [{ message: 'ids: 1 to 100' }],
        },
      };
    const fields = (req.query.get('tweet.fields') ?? '').split(',');
    const data: unknown[] = [];
    const errors: unknown[] = [];
    for (const id of ids) {
      const tweet = this.tweets.find((t) => t.id === id);
      if (!tweet) {
        errors.push({ value: id, detail: `Could not find tweet with ids: [${id}].`, title: 'Not Found Error', resource_type: 'tweet' });
        continue;
      }
      const counts = this.counts.get(id) ?? { public: {} };
      const own = tweet.author_id === user.id && Date.now() - postedAt(id) < 30 * 86_400_000;
      // Non-public metrics of a post they are not given for: X refuses the post, listed in `errors` only.
      if (fields.includes('non_public_metrics') && !own) {
        errors.push({
          value: id,
          detail: `Sorry, you are not authorized to access 'non_public_metrics' on the Tweet with id ${id}.`,
          title: 'Authorization Error',
        });
        continue;
      }
      data.push({
        id,
        text: tweet.text,
        edit_history_tweet_ids: [id],
        ...(fields.includes('public_metrics') && {
          public_metrics: {
            retweet_count: 0,
            reply_count: 0,
            like_count: 0,
            quote_count: 0,
            bookmark_count: 0,
            impression_count: 0,
            ...counts.public,
          },
        }),
        ...(fields.includes('non_public_metrics') &&
          own && { non_public_metrics: { impression_count: 0, url_link_clicks: 0, user_profile_clicks: 0, ...counts.nonPublic } }),
      });
    }
    return { status: 200, body: { ...(data.length && { data }), ...(errors.length && { errors }) } };
  }
}

/** When a post was made, from its snowflake id. */
function postedAt(id: string): number {
  return Number((BigInt(id) >> 22n) + 1_288_834_974_657n);
}
