// A local server speaking Google's documented APIs for what Herald uses, on one loopback origin
// standing in for all of Google's hosts:
// - OAuth 2.0 for web server apps (accounts.google.com/o/oauth2/v2/auth, oauth2.googleapis.com/token):
//   the code with PKCE (S256), a refresh token on `access_type=offline` + `prompt=consent`,
//   access tokens of an hour, refresh without rotation, `invalid_grant` for a revoked grant;
// - the YouTube Data API v3: channels.list (mine or by id; snippet, status with its
//   longUploadsStatus, statistics), the resumable upload of videos.insert (session URI, `Content-Range` chunks answered 308 with `Range`, the status query
//   `bytes */N`, a connection cut mid-chunk, a chunk only partly kept), videos.list (status,
//   processingDetails, statistics), thumbnails.set, playlistItems.insert, playlists.list,
//   videoCategories.list, commentThreads.insert and comments.insert; quota units counted per day
//   (403 quotaExceeded past the limit) and errors in Google's shape;
// - Google Business Profile: accounts.list (Account Management API), accounts.locations.list
//   (Business Information API, `readMask` required) and v4 localPosts.create / list.
import type http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { FakeCall } from '../../helpers/fake-http.ts';
import { bearer, FakeServer, type FakeAnswer, type FakeRequest } from './fake-server.ts';

type Grant = { user: string; scopes: string[] };
export type FakeChannel = {
  id: string;
  title: string;
  customUrl: string;
  subscribers: number;
  hidden?: boolean;
  /** `status.longUploadsStatus`; `allowed` when left out. */
  longUploadsStatus?: 'allowed' | 'eligible' | 'disallowed' | 'longUploadsUnspecified';
};
export type FakeVideo = {
  id: string;
  channelId: string;
  snippet: Record<string, unknown>;
  status: Record<string, unknown>;
  bytes: number;
  mimeType: string;
  notifySubscribers: string | null;
  /** status.uploadStatus becomes `processed` after this many status reads. */
  processingReads: number;
  thumbnail: { type: string; size: number } | null;
  statistics: Record<string, string>;
};
type Session = {
  id: string;
  channelId: string;
  size: number;
  type: string;
  metadata: Record<string, unknown>;
  received: Buffer[];
  notify: string | null;
  videoId?: string;
};

/** Quota units per call (YouTube's quota cost table). */
const COSTS: Record<string, number> = { list: 1, insert: 50, upload: 1600 };

export function googleError(code: number, reason: string, message: string, domain = 'youtube.quota'): FakeAnswer {
  const status = code === 401 ? 'UNAUTHENTICATED' : code === 403 ? 'PERMISSION_DENIED' : code === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT';
  return { status: code, body: { error: { code, message, errors: [{ message, domain, reason }], status } } };
}

export class FakeGoogle extends FakeServer {
  clientId = 'google-client-id.apps.googleusercontent.com';
  clientSecret = 'google-client-secret';
  expiresIn = 3599;
  refuseRefresh = false;
  refreshes = 0;
  /** The channels of the Google identity that signs in next. */
  channels: FakeChannel[] = [{ id: 'UCherald0000000000000001', title: 'Herald Films', customUrl: '@heraldfilms', subscribers: 1200 }];
  /** Daily quota (units); YouTube's default is 10,000. */
  quotaLimit = 10_000;
  quotaUsed = 0;
  /** Status reads before a new video is processed. */
  processingReads = 0;
  /** The next upload chunk: cut the connection after keeping this many of its bytes. */
  cutNextChunkAfter: number | null = null;
  /** Every chunk: keep at most this many bytes (the server may keep less than it was sent). */
  keepAtMost: number | null = null;
  readonly videos = new Map<string, FakeVideo>();
  readonly sessions = new Map<string, Session>();
  readonly comments: Array<{ id: string; videoId: string; parentId: string | null; text: string; channelId: string | null }> = [];
  readonly playlistItems: Array<{ playlistId: string; videoId: string }> = [];
  readonly playlists = [
    { id: 'PLherald0001', title: 'Launches', privacy: 'public' },
    { id: 'PLherald0002', title: 'Behind the scenes', privacy: 'unlisted' },
  ];
  /** Business Profile: accounts and their locations; the posts created. */
  readonly accounts = [{ name: 'accounts/1001', accountName: 'Herald Cafés', type: 'ORGANIZATION' }];
  readonly locations = new Map<string, Array<{ name: string; title: string }>>([
    [
      'accounts/1001',
      [
        { name: 'locations/2001', title: 'Herald Café Lyon' },
        { name: 'locations/2002', title: 'Herald Café Paris' },
      ],
    ],
  ]);
  readonly localPosts: Array<Record<string, unknown> & { name: string }> = [];
  #codes = new Map<string, { challenge: string; redirectUri: string; scopes: string[] }>();
  #access = new Map<string, Grant>();
  #refresh = new Map<string, Grant>();
  #sequence = 0;

  override reset(): void {
    super.reset();
    this.quotaUsed = 0;
    this.refreshes = 0;
    this.cutNextChunkAfter = null;
    this.keepAtMost = null;
  }

  /** Forgets every access token issued: the next call with one is a 401, as after a revocation. */
  revokeAccessTokens(): void {
    this.#access.clear();
  }

  #id(prefix: string): string {
    this.#sequence++;
    return `${prefix}${String(this.#sequence).padStart(9, '0')}${randomBytes(1).toString('hex')}`;
  }

  #issue(grant: Grant, withRefresh: boolean): FakeAnswer {
    const access = `ya29.${randomBytes(16).toString('hex')}`;
    this.#access.set(access, grant);
    const refresh = withRefresh ? `1//${randomBytes(16).toString('hex')}` : undefined;
    if (refresh) this.#refresh.set(refresh, grant);
    return {
      status: 200,
      body: {
        access_token: access,
        expires_in: this.expiresIn,
        token_type: 'Bearer',
        scope: grant.scopes.join(' '),
        ...(refresh && { refresh_token: refresh }),
      },
    };
  }

  #charge(units: number): FakeAnswer | undefined {
    if (this.quotaUsed + units > this.quotaLimit)
      return googleError(
        403,
        'quotaExceeded',
        'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
      );
    this.quotaUsed += units;
    return undefined;
  }

  protected override async serve(call: FakeCall, res?: http.ServerResponse): Promise<FakeAnswer | void> {
    // A connection cut in the middle of an upload chunk: part of it kept, no answer.
    if (call.method === 'PUT' && this.cutNextChunkAfter !== null && call.raw.length > 0) {
      const session = this.sessions.get(call.url.searchParams.get('upload_id') ?? '');
      if (session) {
        session.received.push(call.raw.subarray(0, this.cutNextChunkAfter));
        this.cutNextChunkAfter = null;
        res?.socket?.destroy();
        return;
      }
    }
    return super.serve(call);
  }

  protected async handle(req: FakeRequest): Promise<FakeAnswer> {
    if (req.method === 'GET' && req.path === '/o/oauth2/v2/auth') return this.#authorize(req);
    if (req.method === 'POST' && req.path === '/token') return this.#token(req);
    const grant = this.#access.get(bearer(req) ?? '');
    if (!grant)
      return googleError(401, 'authError', 'Request had invalid authentication credentials. Expected OAuth 2 access token.', 'global');
    if (req.path.startsWith('/youtube/v3/') || req.path.startsWith('/upload/youtube/v3/')) {
      if (!grant.scopes.some((s) => s.includes('youtube')))
        return googleError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', 'global');
      return this.#youtube(req, grant);
    }
    if (!grant.scopes.includes('https://www.googleapis.com/auth/business.manage'))
      return googleError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', 'global');
    return this.#business(req);
  }

  #authorize(req: FakeRequest): FakeAnswer {
    const q = req.query;
    if (
      q.get('client_id') !== this.clientId ||
      q.get('response_type') !== 'code' ||
      q.get('code_challenge_method') !== 'S256' ||
      !q.get('code_challenge') ||
      q.get('access_type') !== 'offline'
    )
      return { status: 400, body: 'Error 400: invalid_request' };
    const code = `4/${randomBytes(8).toString('hex')}`;
    this.#codes.set(code, {
      challenge: q.get('code_challenge')!,
      redirectUri: q.get('redirect_uri')!,
      scopes: (q.get('scope') ?? '').split(' '),
    });
    const back = new URL(q.get('redirect_uri')!);
    back.searchParams.set('state', q.get('state')!);
    back.searchParams.set('code', code);
    back.searchParams.set('scope', q.get('scope') ?? '');
    return { status: 302, headers: { location: back.toString() } };
  }

  #token(req: FakeRequest): FakeAnswer {
    const f = req.form;
    if (f.get('client_id') !== this.clientId || f.get('client_secret') !== this.clientSecret)
      return { status: 401, body: { error: 'invalid_client', error_description: 'The OAuth client was not found.' } };
    if (f.get('grant_type') === 'authorization_code') {
      const code = this.#codes.get(f.get('code') ?? '');
      this.#codes.delete(f.get('code') ?? '');
      const challenge = createHash('sha256')
        .update(f.get('code_verifier') ?? '')
        .digest('base64url');
      if (!code || code.challenge !== challenge || code.redirectUri !== f.get('redirect_uri'))
        return { status: 400, body: { error: 'invalid_grant', error_description: 'Bad Request' } };
      return this.#issue({ user: 'user-1', scopes: code.scopes }, true);
    }
    if (f.get('grant_type') === 'refresh_token') {
      const grant = this.#refresh.get(f.get('refresh_token') ?? '');
      if (!grant || this.refuseRefresh)
        return { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };
      this.refreshes++;
      // Google keeps the refresh token: none in the answer.
      return this.#issue(grant, false);
    }
    return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' } };
  }

  #myChannel(): FakeChannel {
    return this.channels[0]!;
  }

  async #youtube(req: FakeRequest, _grant: Grant): Promise<FakeAnswer> {
    const path = req.path.replace(/^\/youtube\/v3/, '');
    if (req.method === 'GET') {
      const over = this.#charge(COSTS.list!);
      if (over) return over;
    }
    if (req.method === 'GET' && path === '/channels') {
      const list = req.query.get('mine') === 'true' ? this.channels : this.channels.filter((c) => c.id === req.query.get('id'));
      const parts = (req.query.get('part') ?? '').split(',');
      return {
        status: 200,
        body: {
          kind: 'youtube#channelListResponse',
          items: list.map((c) => ({
            kind: 'youtube#channel',
            id: c.id,
            ...(parts.includes('snippet') && {
              snippet: { title: c.title, customUrl: c.customUrl, thumbnails: { default: { url: `https://yt3.example/${c.id}.jpg` } } },
            }),
            ...(parts.includes('status') && {
              status: {
                privacyStatus: 'public',
                isLinked: true,
                longUploadsStatus: c.longUploadsStatus ?? 'allowed',
                madeForKids: false,
              },
            }),
            ...(parts.includes('statistics') && {
              statistics: {
                viewCount: '5000',
                videoCount: String([...this.videos.values()].filter((v) => v.channelId === c.id).length),
                hiddenSubscriberCount: c.hidden === true,
                ...(!c.hidden && { subscriberCount: String(c.subscribers) }),
              },
            }),
          })),
        },
      };
    }
    if (req.method === 'POST' && req.path === '/upload/youtube/v3/videos') {
      if (req.query.get('uploadType') !== 'resumable') return googleError(400, 'badRequest', 'Only resumable uploads here.', 'global');
      const over = this.#charge(COSTS.upload!);
      if (over) return over;
      const size = Number(req.headers['x-upload-content-length']);
      const snippet = (req.json.snippet ?? {}) as Record<string, unknown>;
      const status = (req.json.status ?? {}) as Record<string, unknown>;
      if (typeof snippet.title !== 'string' || !snippet.title)
        return googleError(400, 'invalidTitle', 'The request metadata specifies an invalid or empty video title.', 'youtube.video');
      if (typeof status.selfDeclaredMadeForKids !== 'boolean')
        return googleError(400, 'invalidVideoMetadata', 'The request metadata is invalid.', 'youtube.video');
      const id = this.#id('up');
      this.sessions.set(id, {
        id,
        channelId: this.#myChannel().id,
        size,
        type: String(req.headers['x-upload-content-type'] ?? 'video/*'),
        metadata: req.json,
        received: [],
        notify: req.query.get('notifySubscribers'),
      });
      return { status: 200, headers: { location: `${this.url}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${id}` } };
    }
    if (req.method === 'PUT' && req.path === '/upload/youtube/v3/videos') return this.#chunk(req);
    if (req.method === 'GET' && path === '/videos') {
      const ids = (req.query.get('id') ?? '').split(',');
      const parts = (req.query.get('part') ?? '').split(',');
      const found = ids.map((id) => this.videos.get(id)).filter((v): v is FakeVideo => v !== undefined);
      return {
        status: 200,
        body: {
          kind: 'youtube#videoListResponse',
          items: found.map((v) => {
            if (parts.includes('status') && v.status.uploadStatus === 'uploaded') {
              if (v.processingReads <= 0) v.status.uploadStatus = 'processed';
              v.processingReads--;
            }
            const processing = v.status.uploadStatus === 'uploaded';
            return {
              kind: 'youtube#video',
              id: v.id,
              ...(parts.includes('status') && { status: v.status }),
              ...(parts.includes('processingDetails') && {
                processingDetails: {
                  processingStatus: processing ? 'processing' : 'succeeded',
                  ...(processing && { processingProgress: { partsTotal: '100', partsProcessed: '40', timeLeftMs: '120000' } }),
                },
              }),
              ...(parts.includes('statistics') && { statistics: v.statistics }),
            };
          }),
        },
      };
    }
    if (req.method === 'POST' && req.path === '/upload/youtube/v3/thumbnails/set') {
      const over = this.#charge(COSTS.insert!);
      if (over) return over;
      const video = this.videos.get(req.query.get('videoId') ?? '');
      if (!video) return googleError(404, 'videoNotFound', 'The video that you are trying to update cannot be found.', 'youtube.thumbnail');
      const type = String(req.headers['content-type'] ?? '');
      if (!['image/jpeg', 'image/png'].includes(type))
        return googleError(400, 'invalidImage', 'The provided image content is invalid.', 'youtube.thumbnail');
      if (req.raw.length > 2 * 1024 * 1024) return googleError(400, 'mediaBodyTooBig', 'The image is too big.', 'youtube.thumbnail');
      video.thumbnail = { type, size: req.raw.length };
      return {
        status: 200,
        body: { kind: 'youtube#thumbnailSetResponse', items: [{ default: { url: `https://i.ytimg.example/${video.id}.jpg` } }] },
      };
    }
    if (req.method === 'POST' && path === '/playlistItems') {
      const over = this.#charge(COSTS.insert!);
      if (over) return over;
      const snippet = req.json.snippet as { playlistId?: string; resourceId?: { videoId?: string } } | undefined;
      if (!this.playlists.some((p) => p.id === snippet?.playlistId))
        return googleError(
          404,
          'playlistNotFound',
          "The playlist identified with the request's playlistId parameter cannot be found.",
          'youtube.playlistItem',
        );
      this.playlistItems.push({ playlistId: snippet!.playlistId!, videoId: snippet!.resourceId!.videoId! });
      return { status: 200, body: { kind: 'youtube#playlistItem', id: this.#id('PLI') } };
    }
    if (req.method === 'GET' && path === '/playlists')
      return {
        status: 200,
        body: { items: this.playlists.map((p) => ({ id: p.id, snippet: { title: p.title }, status: { privacyStatus: p.privacy } })) },
      };
    if (req.method === 'GET' && path === '/videoCategories') {
      if (!req.query.get('regionCode') && !req.query.get('id'))
        return googleError(400, 'missingRequiredParameter', 'No filter selected.', 'global');
      return {
        status: 200,
        body: {
          items: [
            { id: '1', snippet: { title: 'Film & Animation', assignable: true } },
            { id: '18', snippet: { title: 'Short Movies', assignable: false } },
            { id: '22', snippet: { title: 'People & Blogs', assignable: true } },
          ],
        },
      };
    }
    if (req.method === 'POST' && path === '/commentThreads') {
      const over = this.#charge(COSTS.insert!);
      if (over) return over;
      const snippet = req.json.snippet as {
        channelId?: string;
        videoId?: string;
        topLevelComment?: { snippet?: { textOriginal?: string } };
      };
      const video = this.videos.get(snippet?.videoId ?? '');
      if (!video)
        return googleError(
          404,
          'videoNotFound',
          'The video identified by the videoId parameter could not be found.',
          'youtube.commentThread',
        );
      const text = snippet.topLevelComment?.snippet?.textOriginal;
      if (!text)
        return googleError(
          400,
          'commentTextRequired',
          'The comment resource must contain a value for snippet.topLevelComment.snippet.textOriginal.',
          'youtube.commentThread',
        );
      const id = this.#id('Ug');
      this.comments.push({ id, videoId: video.id, parentId: null, text, channelId: snippet.channelId ?? null });
      return {
        status: 200,
        body: {
          kind: 'youtube#commentThread',
          id,
          snippet: { videoId: video.id, topLevelComment: { id, snippet: { textOriginal: text } } },
        },
      };
    }
    if (req.method === 'POST' && path === '/comments') {
      const over = this.#charge(COSTS.insert!);
      if (over) return over;
      const snippet = req.json.snippet as { parentId?: string; textOriginal?: string };
      const parent = this.comments.find((c) => c.id === snippet?.parentId && c.parentId === null);
      if (!parent) return googleError(404, 'parentCommentNotFound', 'The parent comment could not be found.', 'youtube.comment');
      const id = `${parent.id}.${this.#id('r')}`;
      this.comments.push({ id, videoId: parent.videoId, parentId: parent.id, text: snippet.textOriginal ?? '', channelId: null });
      return { status: 200, body: { kind: 'youtube#comment', id, snippet: { parentId: parent.id, textOriginal: snippet.textOriginal } } };
    }
    return googleError(404, 'notFound', `No route ${req.method} ${req.path}.`, 'global');
  }

  /** One PUT to an upload session: a chunk with `Content-Range: bytes a-b/N`, or the status query (`bytes *` over N). */
  #chunk(req: FakeRequest): FakeAnswer {
    const session = this.sessions.get(req.query.get('upload_id') ?? '');
    if (!session) return { status: 404, body: { error: { code: 404, message: 'Upload session not found.' } } };
    if (session.videoId) return this.#finished(session);
    const have = session.received.reduce((n, b) => n + b.length, 0);
    const range = String(req.headers['content-range'] ?? '');
    const query = /^bytes \*\/(\d+)$/.exec(range);
    if (!query) {
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
      if (!m || Number(m[3]) !== session.size || Number(m[2]) - Number(m[1]) + 1 !== req.raw.length)
        return { status: 400, body: { error: { code: 400, message: 'Invalid Content-Range.' } } };
      // Bytes before what the server has are not accepted: the client must resume where it stands.
      if (Number(m[1]) !== have) return { status: 400, body: { error: { code: 400, message: `Expected the range to start at ${have}.` } } };
      const kept = this.keepAtMost === null ? req.raw : req.raw.subarray(0, this.keepAtMost);
      session.received.push(Buffer.from(kept));
    }
    const now = session.received.reduce((n, b) => n + b.length, 0);
    if (now < session.size) return { status: 308, headers: now > 0 ? { range: `bytes=0-${now - 1}` } : {} };
    return this.#finish(session);
  }

  #finish(session: Session): FakeAnswer {
    const id = this.#id('v').slice(0, 11);
    const status = { ...(session.metadata.status as Record<string, unknown>) };
    this.videos.set(id, {
      id,
      channelId: session.channelId,
      snippet: { ...(session.metadata.snippet as Record<string, unknown>), channelId: session.channelId },
      status: { ...status, uploadStatus: 'uploaded', privacyStatus: status.privacyStatus ?? 'public' },
      bytes: session.size,
      mimeType: session.type,
      notifySubscribers: session.notify,
      processingReads: this.processingReads,
      thumbnail: null,
      statistics: { viewCount: '0', likeCount: '0', favoriteCount: '0', commentCount: '0' },
    });
    session.videoId = id;
    return this.#finished(session);
  }

  #finished(session: Session): FakeAnswer {
    const video = this.videos.get(session.videoId!)!;
    return { status: 201, body: { kind: 'youtube#video', id: video.id, snippet: video.snippet, status: video.status } };
  }

  /** The uploaded bytes of a video, as the session received them. */
  uploaded(videoId: string): Buffer {
    const session = [...this.sessions.values()].find((s) => s.videoId === videoId);
    return Buffer.concat(session?.received ?? []);
  }

  #business(req: FakeRequest): FakeAnswer {
    if (req.method === 'GET' && req.path === '/v1/accounts') return { status: 200, body: { accounts: this.accounts } };
    const locations = /^\/v1\/(accounts\/[^/]+)\/locations$/.exec(req.path);
    if (req.method === 'GET' && locations) {
      if (!req.query.get('readMask'))
        return {
          status: 400,
          body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } },
        };
      return { status: 200, body: { locations: this.locations.get(locations[1]!) ?? [] } };
    }
    const posts = /^\/v4\/(accounts\/[^/]+)\/(locations\/[^/]+)\/localPosts$/.exec(req.path);
    if (posts) {
      const [, account, location] = posts;
      if (!(this.locations.get(account!) ?? []).some((l) => l.name === location))
        return { status: 404, body: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } } };
      if (req.method === 'GET')
        return { status: 200, body: { localPosts: this.localPosts.filter((p) => p.name.startsWith(`${account}/${location}/`)) } };
      const body = req.json;
      const topic = body.topicType;
      if (!['STANDARD', 'EVENT', 'OFFER', 'ALERT'].includes(String(topic)))
        return {
          status: 400,
          body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } },
        };
      if ((topic === 'EVENT' || topic === 'OFFER') && !(body.event as { title?: string } | undefined)?.title)
        return {
          status: 400,
          body: {
            error: {
              code: 400,
              message: 'Request contains an invalid argument.',
              status: 'INVALID_ARGUMENT',
              details: [{ fieldViolations: [{ field: 'event.title' }] }],
            },
          },
        };
      const name = `${account}/${location}/localPosts/${this.#id('')}`;
      const post = {
        ...body,
        name,
        state: 'LIVE',
        createTime: new Date().toISOString(),
        searchUrl: `https://local.google.example/posts/${name.split('/').pop()}`,
      };
      this.localPosts.push(post);
      return { status: 200, body: post };
    }
    return { status: 404, body: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } } };
  }
}
