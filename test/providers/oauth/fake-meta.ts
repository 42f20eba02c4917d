// A local server speaking Meta's Graph API for what Herald uses, both hosts on one origin:
// - Facebook Login (graph.facebook.com): the login dialog, the code exchange, the long-lived
//   user token exchange (fb_exchange_token), /me/accounts with page tokens, tasks and linked
//   Instagram accounts, a page read again by id;
// - Facebook pages: /feed (message, link, attached_media), /photos (published or not), /videos
//   (file_url, or the resumable upload: upload_phase start, transfer in chunks of `chunkSize` from
//   the offsets it names, 1363037 with the wanted offsets for a chunk from another offset, finish)
//   whose `status` goes processing then ready (or error, with the processing phase's errors),
//   reels (/video_reels start with an upload_url on this server, the bytes POSTed there with
//   `Authorization: OAuth`, `offset` and `file_size` or a `file_url` header, finish with
//   video_state=PUBLISHED), comments and replies, permalinks, reaction/comment/share summaries,
//   followers, the pages search (places with a location); a duplicate message refused with code 506;
// - Instagram (through a page token, or an Instagram Login token): media containers (image,
//   REELS with cover_url or thumb_offset, STORIES, carousel items and CAROUSEL; user_tags checked
//   on images and carousel items) going IN_PROGRESS then FINISHED (or ERROR with
//   a 2207xxx code), media_publish (9007/2207027 before FINISHED), the publishing limit, comments
//   and replies, permalinks, insights and account counts, Business Discovery of other
//   professional accounts by username (110/2207013 for one it cannot find);
// - Instagram Login (graph.instagram.com, api.instagram.com, www.instagram.com): the authorize
//   window (code ending `#_`), the code exchange, ig_exchange_token and ig_refresh_token, /me;
// and Graph API error answers (`{error: {message, type, code, error_subcode, fbtrace_id}}`).
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { FakeCall } from '../../helpers/fake-http.ts';
import { bearer, FakeServer, toRequest, type FakeAnswer, type FakeRequest } from './fake-server.ts';

export type FakeIgAccount = { id: string; username: string; name: string; accountType?: string };
export type FakePage = { id: string; name: string; tasks: string[]; instagram?: FakeIgAccount };
type Principal =
  | { kind: 'fb-short' | 'fb-user'; user: string }
  | { kind: 'page'; page: string }
  | { kind: 'ig-short' | 'ig-long'; ig: FakeIgAccount; issuedAt: number };
type Container = {
  id: string;
  owner: string;
  params: Record<string, string>;
  polls: number;
  state: 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'PUBLISHED';
};
export type FakeFbPost = {
  id: string;
  page: string;
  kind: 'feed' | 'photo' | 'video' | 'reel';
  message: string;
  link: string | null;
  photos: string[];
  video: string | null;
};
export type FakeIgMedia = { id: string; owner: string; type: string; caption: string; urls: string[]; params: Record<string, string> };
export type FakeComment = { id: string; on: string; message: string; attachment: string | null; reply: boolean };

export const graphError = (status: number, message: string, code: number, extra: Record<string, unknown> = {}): FakeAnswer => ({
  status,
  body: { error: { message, type: 'OAuthException', code, fbtrace_id: 'AbC123xYz', ...extra } },
});

export class FakeMeta extends FakeServer {
  fbAppId = '4455667788';
  fbAppSecret = 'facebook-app-secret';
  igAppId = '990602627938098';
  igAppSecret = 'instagram-app-secret';
  version = 'v25.0';
  /** Instagram Login's long-lived token lifetime (seconds). */
  expiresIn = 5_184_000;
  refuseRefresh = false;
  refreshes = 0;
  /** Status checks a container stays IN_PROGRESS before it is FINISHED. */
  processingPolls = 0;
  /** Status reads a page video stays `processing` before it is `ready`. */
  videoProcessingPolls = 0;
  /** A page video whose file URL contains this ends in `error`, the processing phase giving `message`. */
  failingVideo: { match: string; message: string } | null = null;
  /** Page videos' processing by video id. */
  readonly videos = new Map<string, { polls: number; state: 'processing' | 'ready' | 'error' }>();
  /** The resumable upload's chunk size: each answer names the next `chunkSize` bytes. */
  chunkSize = 1024 * 1024;
  /** A transfer from this offset loses its answer: the connection is cut after the chunk was taken (`after`) or before (`before`). */
  cutChunk: { at: number; when: 'after' | 'before' } | null = null;
  /** Resumable upload sessions by id: the page, the video id, the declared size and the bytes taken. */
  readonly uploadSessions = new Map<string, { page: string; videoId: string; size: number; bytes: Buffer[]; received: number }>();
  /** Reels by video id: the page, the bytes (or the hosted file's URL) received on the upload host, and whether finished. */
  /** The bytes of page videos sent through the resumable upload, by video id. */
  readonly uploadedVideos = new Map<string, Buffer>();
  readonly reels = new Map<string, { page: string; bytes: Buffer | null; fileUrl: string | null; finished: boolean }>();
  /** A container whose media URL contains this ends in ERROR (Instagram could not fetch or read it). */
  failingMedia: { match: string; subcode: number } | null = null;
  quotaUsage = 0;
  quotaTotal = 100;
  /** The next media_publish loses its answer: the connection is cut after publishing (`after`) or before (`before`). */
  cutPublish: 'after' | 'before' | null = null;
  /** The person who signs in with Facebook and the pages they manage. */
  fbUser = 'fb-user-1';
  pages: FakePage[] = [];
  /** Facebook pages the Pages Search API finds (those with a `location` can tag Instagram posts). */
  places: Array<{ id: string; name: string; location?: Record<string, unknown> }> = FakeMeta.defaultPlaces();
  /** Whether the app has the Page Public Metadata Access feature the Pages Search API needs. */
  pagesSearchFeature = true;
  /** Other professional accounts Business Discovery finds by username. */
  discoverable: Array<FakeIgAccount & { followers: number; media: number }> = [
    { id: '17841400000000555', username: 'herald.friends', name: 'Friends of Herald', followers: 3400, media: 120 },
  ];
  /** The account that signs in with Instagram Login. */
  igLogin: FakeIgAccount = { id: '17841400000000777', username: 'herald.ig', name: 'Herald on Instagram', accountType: 'BUSINESS' };
  readonly fbPosts: FakeFbPost[] = [];
  readonly unpublishedPhotos = new Map<string, { page: string; url: string }>();
  readonly igMedia: FakeIgMedia[] = [];
  readonly containers = new Map<string, Container>();
  readonly comments: FakeComment[] = [];
  /** Insights by media id; counts by post id (reactions, comments, shares); followers by account or page id. */
  readonly insights = new Map<string, Record<string, number>>();
  readonly followers = new Map<string, number>();
  #codes = new Map<string, { redirectUri: string; principal: Principal }>();
  #tokens = new Map<string, Principal>();
  #next = 18_000_000_000_000_000n;

  constructor() {
    super();
    this.pages = FakeMeta.defaultPages();
  }

  static defaultPlaces(): Array<{ id: string; name: string; location?: Record<string, unknown> }> {
    return [
      {
        id: '110843418940484',
        name: 'Herald Bakery Berlin',
        location: { street: 'Torstraße 1', city: 'Berlin', country: 'Germany', zip: '10119', latitude: 52.529, longitude: 13.401 },
      },
      { id: '110843418940485', name: 'Herald Bakery fans' },
      {
        id: '110843418940486',
        name: 'Herald Bakery Paris',
        location: { city: 'Paris', country: 'France', latitude: 48.86, longitude: 2.35 },
      },
    ];
  }

  static defaultPages(): FakePage[] {
    return [
      {
        id: '101000000000001',
        name: 'Herald Bakery',
        tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
        instagram: { id: '17841400000000101', username: 'herald.bakery', name: 'Herald Bakery' },
      },
    ];
  }

  override reset(): void {
    super.reset();
    this.fbPosts.length = 0;
    this.igMedia.length = 0;
    this.comments.length = 0;
    this.unpublishedPhotos.clear();
    this.containers.clear();
    this.insights.clear();
    this.followers.clear();
    this.refreshes = 0;
    this.refuseRefresh = false;
    this.quotaUsage = 0;
    this.processingPolls = 0;
    this.failingMedia = null;
    this.videoProcessingPolls = 0;
    this.failingVideo = null;
    this.videos.clear();
    this.chunkSize = 1024 * 1024;
    this.cutChunk = null;
    this.uploadSessions.clear();
    this.reels.clear();
    this.uploadedVideos.clear();
    this.places = FakeMeta.defaultPlaces();
    this.pagesSearchFeature = true;
    this.cutPublish = null;
    this.expiresIn = 5_184_000;
    this.pages = FakeMeta.defaultPages();
  }

  protected override async serve(call: FakeCall, res?: http.ServerResponse): Promise<FakeAnswer | void> {
    const chunkCut = this.cutChunk;
    if (
      chunkCut &&
      call.path.endsWith('/videos') &&
      /name="start_offset"\r\n\r\n(\d+)/.exec(call.raw.toString('latin1'))?.[1] === String(chunkCut.at)
    ) {
      this.cutChunk = null;
      // Taken (then the answer lost), or lost on the way: either way the request is seen.
      if (chunkCut.when === 'after') await super.serve(call);
      else this.calls.push(toRequest(call));
      res?.socket?.destroy();
      return;
    }
    const cut = this.cutPublish;
    if (!cut || !call.path.endsWith('/media_publish')) return super.serve(call);
    this.cutPublish = null;
    // Published (or not), but the answer never arrives.
    if (cut === 'after') await super.serve(call);
    res?.socket?.destroy();
  }

  #id(): string {
    this.#next += 1n;
    return String(this.#next);
  }

  #token(prefix: string, principal: Principal): string {
    const token = `${prefix}${randomBytes(20).toString('hex')}`;
    this.#tokens.set(token, principal);
    return token;
  }

  /** A page token for `page` (as /me/accounts gives one), for tests that make channels directly. */
  pageToken(page: string): string {
    return this.#token('EAAP', { kind: 'page', page });
  }

  #redirect(q: URLSearchParams, principal: Principal, suffix = ''): FakeAnswer {
    const code = randomBytes(8).toString('hex');
    this.#codes.set(code, { redirectUri: q.get('redirect_uri')!, principal });
    const back = new URL(q.get('redirect_uri')!);
    back.searchParams.set('code', `${code}${suffix}`);
    back.searchParams.set('state', q.get('state')!);
    return { status: 302, headers: { location: back.toString() } };
  }

  #pageJson(page: FakePage, fields: string) {
    return {
      id: page.id,
      name: page.name,
      access_token: this.pageToken(page.id),
      tasks: page.tasks,
      picture: { data: { url: `https://scontent.xx.fbcdn.net/${page.id}.jpg` } },
      ...(page.instagram &&
        fields.includes('instagram_business_account') && {
          instagram_business_account: {
            id: page.instagram.id,
            username: page.instagram.username,
            name: page.instagram.name,
            profile_picture_url: `https://scontent.cdninstagram.com/${page.instagram.id}.jpg`,
          },
        }),
    };
  }

  protected handle(req: FakeRequest): FakeAnswer | Promise<FakeAnswer> {
    const q = req.query;
    const v = `/${this.version}`;
    // Facebook Login
    if (req.method === 'GET' && req.path === `${v}/dialog/oauth`) {
      if (q.get('client_id') !== this.fbAppId || q.get('response_type') !== 'code') return { status: 400, body: 'bad login request' };
      return this.#redirect(q, { kind: 'fb-short', user: this.fbUser });
    }
    if (req.method === 'GET' && req.path === `${v}/oauth/access_token`) {
      if (q.get('client_id') !== this.fbAppId || q.get('client_secret') !== this.fbAppSecret)
        return graphError(400, 'Error validating client secret.', 1);
      if (q.get('grant_type') === 'fb_exchange_token') {
        const short = this.#tokens.get(q.get('fb_exchange_token') ?? '');
        if (!short || short.kind !== 'fb-short') return graphError(400, 'Invalid OAuth access token.', 190);
        return {
          status: 200,
          body: { access_token: this.#token('EAAL', { kind: 'fb-user', user: short.user }), token_type: 'bearer', expires_in: 5_183_944 },
        };
      }
      const code = this.#codes.get(q.get('code') ?? '');
      this.#codes.delete(q.get('code') ?? '');
      if (!code || code.redirectUri !== q.get('redirect_uri'))
        return graphError(400, 'Invalid verification code format.', 100, { error_subcode: 36007 });
      return { status: 200, body: { access_token: this.#token('EAAS', code.principal), token_type: 'bearer', expires_in: 5183 } };
    }
    // Instagram Login
    if (req.method === 'GET' && req.path === '/oauth/authorize') {
      if (
        q.get('client_id') !== this.igAppId ||
        q.get('response_type') !== 'code' ||
        !(q.get('scope') ?? '').includes('instagram_business_basic')
      )
        return { status: 400, body: 'bad authorize request' };
      return this.#redirect(q, { kind: 'ig-short', ig: { ...this.igLogin }, issuedAt: Date.now() }, '#_');
    }
    if (req.method === 'POST' && req.path === '/oauth/access_token') {
      const f = req.form;
      if (f.get('client_id') !== this.igAppId || f.get('client_secret') !== this.igAppSecret)
        return { status: 400, body: { error_type: 'OAuthException', code: 400, error_message: 'Invalid client secret' } };
      const code = this.#codes.get(f.get('code') ?? '');
      this.#codes.delete(f.get('code') ?? '');
      if (!code || code.redirectUri !== f.get('redirect_uri') || f.get('grant_type') !== 'authorization_code')
        return { status: 400, body: { error_type: 'OAuthException', code: 400, error_message: 'Invalid authorization code' } };
      const ig = (code.principal as { ig: FakeIgAccount }).ig;
      return {
        status: 200,
        body: {
          data: [
            {
              access_token: this.#token('IGQS', { kind: 'ig-short', ig, issuedAt: Date.now() }),
              user_id: ig.id,
              permissions: 'instagram_business_basic,instagram_business_content_publish',
            },
          ],
        },
      };
    }
    if (req.method === 'GET' && req.path === '/access_token') {
      const short = this.#tokens.get(q.get('access_token') ?? '');
      if (q.get('grant_type') !== 'ig_exchange_token' || q.get('client_secret') !== this.igAppSecret || short?.kind !== 'ig-short')
        return graphError(400, 'Invalid OAuth access token.', 190);
      return this.#igLong(short.ig);
    }
    if (req.method === 'GET' && req.path === '/refresh_access_token') {
      const long = this.#tokens.get(q.get('access_token') ?? '');
      if (q.get('grant_type') !== 'ig_refresh_token' || long?.kind !== 'ig-long' || this.refuseRefresh)
        return graphError(400, 'Error validating access token: Session has expired.', 190, { error_subcode: 463 });
      this.refreshes++;
      return this.#igLong(long.ig);
    }
    if (req.method === 'POST' && req.path.startsWith(`/video-upload${v}/`)) return this.#rupload(req, req.path.split('/').pop()!);
    if (!req.path.startsWith(`${v}/`)) return graphError(400, `Unknown path components: ${req.path}`, 2500);
    const principal = this.#tokens.get(bearer(req) ?? '');
    if (!principal || principal.kind === 'fb-short' || principal.kind === 'ig-short')
      return graphError(400, 'Invalid OAuth access token - Cannot parse access token', 190);
    const path = req.path.slice(v.length);
    if (
      req.method === 'POST' &&
      principal.kind === 'page' &&
      path === `/${principal.page}/videos` &&
      String(req.headers['content-type']).startsWith('multipart/')
    )
      return req.multipart().then((form) => this.#transfer(principal.page, form));
    return this.#graph(req, principal, path);
  }

  #igLong(ig: FakeIgAccount): FakeAnswer {
    return {
      status: 200,
      body: {
        access_token: this.#token('IGQL', { kind: 'ig-long', ig, issuedAt: Date.now() }),
        token_type: 'bearer',
        expires_in: this.expiresIn,
      },
    };
  }

  /** The Instagram account a token may publish for: an Instagram Login token's, or the one linked to a page token's page. */
  #igOf(principal: Principal): FakeIgAccount | null {
    if (principal.kind === 'ig-long') return principal.ig;
    if (principal.kind === 'page') return this.pages.find((p) => p.id === principal.page)?.instagram ?? null;
    return null;
  }

  #graph(req: FakeRequest, principal: Principal, path: string): FakeAnswer {
    const fields = req.query.get('fields') ?? '';
    const parts = path.split('/').filter(Boolean);
    if (principal.kind === 'fb-user') {
      if (req.method === 'GET' && path === '/me/accounts')
        return { status: 200, body: { data: this.pages.map((p) => this.#pageJson(p, fields)) } };
      const page = this.pages.find((p) => p.id === parts[0]);
      if (req.method === 'GET' && page && parts.length === 1) return { status: 200, body: this.#pageJson(page, fields) };
      return graphError(400, 'Unsupported get request.', 100, { error_subcode: 33 });
    }
    if (req.method === 'GET' && path === '/me' && principal.kind === 'ig-long') {
      const ig = principal.ig;
      return {
        status: 200,
        body: {
          id: `9${ig.id.slice(1)}`,
          user_id: ig.id,
          username: ig.username,
          name: ig.name,
          account_type: ig.accountType ?? 'BUSINESS',
          profile_picture_url: `https://scontent.cdninstagram.com/${ig.id}.jpg`,
        },
      };
    }
    if (req.method === 'GET' && path === '/pages/search' && principal.kind === 'page') {
      if (!this.pagesSearchFeature)
        return graphError(
          400,
          "(#10) This endpoint requires the 'pages_read_engagement' permission or the 'Page Public Metadata Access' feature.",
          10,
        );
      const q = (req.query.get('q') ?? '').toLowerCase();
      const wanted = fields.split(',');
      const found = this.places
        .filter((p) => q.split(/\s+/).every((word) => p.name.toLowerCase().includes(word)))
        .map((p) =>
          Object.fromEntries(Object.entries({ ...p, link: `https://www.facebook.com/${p.id}` }).filter(([k]) => wanted.includes(k))),
        );
      return { status: 200, body: { data: found.slice(0, Number(req.query.get('limit') ?? 25)) } };
    }
    const ig = this.#igOf(principal);
    // Instagram: /{ig-user-id}/...
    if (ig && parts[0] === ig.id) return this.#instagramUser(req, ig, parts.slice(1), fields);
    // Facebook page: /{page-id}/...
    if (principal.kind === 'page' && parts[0] === principal.page) return this.#page(req, principal.page, parts.slice(1), fields);
    const [id, edge] = parts;
    const container = this.containers.get(id ?? '');
    if (container && ig && container.owner === ig.id && req.method === 'GET' && !edge) {
      container.polls++;
      if (container.state === 'IN_PROGRESS' && container.polls > this.processingPolls) {
        const url = container.params.image_url ?? container.params.video_url ?? '';
        container.state = this.failingMedia && url.includes(this.failingMedia.match) ? 'ERROR' : 'FINISHED';
      }
      return {
        status: 200,
        body: {
          id: container.id,
          status_code: container.state,
          ...(container.state === 'ERROR' && { status: `Error: Media download has failed. (${this.failingMedia?.subcode ?? 2207052})` }),
        },
      };
    }
    const media = this.igMedia.find((m) => m.id === id);
    if (media && ig && media.owner === ig.id) return this.#igMediaNode(req, media, edge, fields);
    const comment = this.comments.find((c) => c.id === id);
    if (comment && req.method === 'POST' && (edge === 'replies' || edge === 'comments')) {
      if (comment.reply) return graphError(400, 'Replies to replies are not supported.', 100);
      return this.#comment(req, comment.id, true);
    }
    const post = this.fbPosts.find((p) => p.id === id);
    if (post && principal.kind === 'page' && post.page === principal.page) {
      if (req.method === 'POST' && edge === 'comments') return this.#comment(req, post.id, false);
      if (req.method === 'GET' && !edge && (post.kind === 'video' || post.kind === 'reel') && fields.split(',').includes('status'))
        return this.#videoStatus(post);
      if (req.method === 'GET' && !edge) {
        const counts = this.insights.get(post.id) ?? {};
        return {
          status: 200,
          body: {
            id: post.id,
            permalink_url: `https://www.facebook.com/${post.page}/posts/${post.id.split('_')[1] ?? post.id}`,
            ...(fields.includes('reactions') && {
              reactions: { data: [], summary: { total_count: counts.reactions ?? 0, viewer_reaction: 'NONE' } },
              comments: { data: [], summary: { order: 'ranked', total_count: counts.comments ?? 0, can_comment: true } },
              ...(counts.shares !== undefined && { shares: { count: counts.shares } }),
            }),
          },
        };
      }
    }
    return graphError(
      400,
      `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      100,
      { error_subcode: 33 },
    );
  }

  /** A page video's `status` (Graph API Video Status): its phases, then `ready` once processed and published. */
  #videoStatus(post: FakeFbPost): FakeAnswer {
    const video = this.videos.get(post.id)!;
    video.polls++;
    if (video.state === 'processing' && video.polls > this.videoProcessingPolls)
      video.state = this.failingVideo && post.video!.includes(this.failingVideo.match) ? 'error' : 'ready';
    const uploading_phase = { status: 'complete', bytes_transferred: 1024 };
    const status =
      video.state === 'processing'
        ? {
            video_status: 'processing',
            uploading_phase,
            processing_phase: { status: 'in_progress' },
            publishing_phase: { status: 'not_started' },
          }
        : video.state === 'error'
          ? {
              video_status: 'error',
              uploading_phase,
              processing_phase: { status: 'error', errors: [{ code: 1363008, message: this.failingVideo!.message }] },
              publishing_phase: { status: 'not_started' },
            }
          : {
              video_status: 'ready',
              uploading_phase,
              processing_phase: { status: 'complete' },
              publishing_phase: { status: 'complete', publish_status: 'published', publish_time: new Date().toISOString() },
            };
    return { status: 200, body: { id: post.id, status } };
  }

  #comment(req: FakeRequest, on: string, reply: boolean): FakeAnswer {
    const message = req.form.get('message') ?? '';
    if (!message && !req.form.get('attachment_url')) return graphError(400, '(#100) Missing message or attachment', 100);
    const id = reply ? `${on.split('_')[0]}_${this.#id()}` : this.#id();
    this.comments.push({ id, on, message, attachment: req.form.get('attachment_url'), reply });
    return { status: 200, body: { id } };
  }

  #page(req: FakeRequest, page: string, edge: string[], fields: string): FakeAnswer {
    const f = req.form;
    if (req.method === 'GET' && edge.length === 0) {
      const found = this.pages.find((p) => p.id === page)!;
      return {
        status: 200,
        body: {
          id: page,
          name: found.name,
          ...(fields.includes('followers_count') && { followers_count: this.followers.get(page) ?? 0, fan_count: 1 }),
        },
      };
    }
    if (req.method !== 'POST') return graphError(400, 'Unsupported request.', 100);
    const message = f.get('message') ?? '';
    const postId = () => `${page}_${this.#id()}`;
    if (edge[0] === 'feed') {
      if (message && this.fbPosts.some((p) => p.page === page && p.message === message))
        return graphError(400, 'Duplicate status message', 506, {
          error_user_msg: 'This status update is identical to the last one you posted.',
        });
      const photos: string[] = [];
      for (const [key, value] of f) {
        if (!/^attached_media\[\d+\]$/.test(key)) continue;
        const fbid = String((JSON.parse(value) as { media_fbid?: string }).media_fbid);
        const photo = this.unpublishedPhotos.get(fbid);
        if (!photo || photo.page !== page) return graphError(400, `(#100) Invalid media_fbid ${fbid}`, 100);
        photos.push(photo.url);
      }
      if (!message && photos.length === 0 && !f.get('link')) return graphError(400, '(#100) The post is empty.', 100);
      const id = postId();
      this.fbPosts.push({ id, page, kind: 'feed', message, link: f.get('link'), photos, video: null });
      return { status: 200, body: { id } };
    }
    if (edge[0] === 'photos') {
      const url = f.get('url');
      if (!url) return graphError(400, '(#324) Requires upload file', 324);
      const photoId = this.#id();
      if (f.get('published') === 'false') {
        this.unpublishedPhotos.set(photoId, { page, url });
        return { status: 200, body: { id: photoId } };
      }
      const id = postId();
      this.fbPosts.push({ id, page, kind: 'photo', message, link: null, photos: [url], video: null });
      return { status: 200, body: { id: photoId, post_id: id } };
    }
    if (edge[0] === 'videos' && f.get('upload_phase') === 'start') {
      const size = Number(f.get('file_size'));
      if (!Number.isSafeInteger(size) || size < 1024)
        return graphError(400, 'The video you tried to upload is too small.', 6000, { error_subcode: 1363022 });
      const session = this.#id();
      const videoId = this.#id();
      this.uploadSessions.set(session, { page, videoId, size, bytes: [], received: 0 });
      return {
        status: 200,
        body: { upload_session_id: session, video_id: videoId, start_offset: '0', end_offset: String(Math.min(this.chunkSize, size)) },
      };
    }
    if (edge[0] === 'videos' && f.get('upload_phase') === 'finish') {
      const session = this.uploadSessions.get(f.get('upload_session_id') ?? '');
      if (!session || session.page !== page) return graphError(400, 'Invalid upload session.', 6000, { error_subcode: 1363020 });
      if (session.received !== session.size)
        return graphError(400, 'There was a problem uploading your video. Please try uploading it again.', 6000, {
          error_subcode: 1363033,
        });
      this.uploadSessions.delete(f.get('upload_session_id')!);
      this.fbPosts.push({
        id: session.videoId,
        page,
        kind: 'video',
        message: f.get('description') ?? '',
        link: null,
        photos: [],
        video: `upload:${session.videoId}`,
      });
      this.uploadedVideos.set(session.videoId, Buffer.concat(session.bytes));
      this.videos.set(session.videoId, { polls: 0, state: 'processing' });
      return { status: 200, body: { success: true } };
    }
    if (edge[0] === 'video_reels') return this.#reelPhase(page, f);
    if (edge[0] === 'videos') {
      const url = f.get('file_url');
      if (!url) return graphError(400, '(#100) No file_url given', 100);
      const id = this.#id();
      this.fbPosts.push({ id, page, kind: 'video', message: f.get('description') ?? '', link: null, photos: [], video: url });
      this.videos.set(id, { polls: 0, state: 'processing' });
      return { status: 200, body: { id } };
    }
    return graphError(400, 'Unsupported post request.', 100);
  }

  /** A resumable upload's transfer: the chunk must start where the session stands, else 1363037 names the wanted range. */
  #transfer(page: string, form: FormData): FakeAnswer | Promise<FakeAnswer> {
    const session = this.uploadSessions.get(String(form.get('upload_session_id')));
    if (form.get('upload_phase') !== 'transfer' || !session || session.page !== page)
      return graphError(400, 'Invalid upload session.', 6000, { error_subcode: 1363020 });
    const wanted = {
      start_offset: String(session.received),
      end_offset: String(Math.min(session.received + this.chunkSize, session.size)),
    };
    const chunk = form.get('video_file_chunk');
    if (String(form.get('start_offset')) !== wanted.start_offset || !(chunk instanceof Blob))
      return graphError(
        400,
        `There was a problem uploading your video. Please try uploading it again. error_data:{start_offset:${wanted.start_offset},end_offset:${wanted.end_offset}}`,
        6000,
        { error_subcode: 1363037, error_data: wanted },
      );
    return chunk.arrayBuffer().then((data) => {
      const bytes = Buffer.from(data);
      if (bytes.length !== Number(wanted.end_offset) - session.received)
        return graphError(400, 'There was a problem uploading your video. Please try uploading it again.', 6000, {
          error_subcode: 1363033,
        });
      session.bytes.push(bytes);
      session.received += bytes.length;
      return {
        status: 200,
        body: { start_offset: String(session.received), end_offset: String(Math.min(session.received + this.chunkSize, session.size)) },
      };
    });
  }

  /** `/{page}/video_reels`: `start` opens an upload on this server's upload host; `finish` publishes what was uploaded. */
  #reelPhase(page: string, f: URLSearchParams): FakeAnswer {
    if (f.get('upload_phase') === 'start') {
      const id = this.#id();
      this.reels.set(id, { page, bytes: null, fileUrl: null, finished: false });
      return { status: 200, body: { video_id: id, upload_url: `${this.url}/video-upload/${this.version}/${id}` } };
    }
    if (f.get('upload_phase') === 'finish') {
      const id = f.get('video_id') ?? '';
      const reel = this.reels.get(id);
      if (!reel || reel.page !== page) return graphError(400, `(#100) Invalid video_id ${id}`, 100);
      if (!reel.bytes && !reel.fileUrl)
        return graphError(400, 'Video Upload Is Missing: the video was not uploaded.', 6000, { error_subcode: 1363130 });
      if (f.get('video_state') !== 'PUBLISHED') return graphError(400, '(#100) video_state must be PUBLISHED, DRAFT or SCHEDULED', 100);
      if (!reel.finished) {
        reel.finished = true;
        const video = reel.fileUrl ?? `rupload:${id}`;
        this.fbPosts.push({ id, page, kind: 'reel', message: f.get('description') ?? '', link: null, photos: [], video });
        this.videos.set(id, { polls: 0, state: 'processing' });
      }
      return { status: 200, body: { success: true } };
    }
    return graphError(400, '(#100) upload_phase must be one of start, finish', 100);
  }

  /** Reels' upload host: the whole file from `offset` 0 with its `file_size`, or a hosted file by `file_url`, with the page token as `OAuth`. */
  #rupload(req: FakeRequest, id: string): FakeAnswer {
    const auth = String(req.headers.authorization ?? '');
    const principal = this.#tokens.get(auth.startsWith('OAuth ') ? auth.slice(6) : '');
    const reel = this.reels.get(id);
    if (!reel || principal?.kind !== 'page' || principal.page !== reel.page)
      return { status: 401, body: { debug_info: { retriable: false, type: 'AuthError', message: 'Invalid OAuth access token.' } } };
    const fileUrl = req.headers.file_url;
    if (typeof fileUrl === 'string') {
      reel.fileUrl = fileUrl;
      return { status: 200, body: { success: true } };
    }
    const size = Number(req.headers.file_size);
    if (req.headers.offset !== '0' || size !== req.raw.length)
      return {
        status: 400,
        body: {
          debug_info: {
            retriable: false,
            type: 'ParameterValidationError',
            message: 'Header offset or file_size does not match the upload.',
          },
        },
      };
    reel.bytes = Buffer.from(req.raw);
    return { status: 200, body: { success: true } };
  }

  #instagramUser(req: FakeRequest, ig: FakeIgAccount, edge: string[], fields: string): FakeAnswer {
    const f = req.form;
    const discovery = /^business_discovery\.username\(([^)]*)\)/.exec(fields);
    if (req.method === 'GET' && edge.length === 0 && discovery) {
      const known = [
        ...this.pages.flatMap((p) => (p.instagram ? [{ ...p.instagram, followers: 10, media: 1 }] : [])),
        ...this.discoverable,
      ];
      const account = known.find((a) => a.username === discovery[1]);
      if (!account)
        return graphError(400, 'Invalid user id', 110, {
          error_subcode: 2207013,
          error_user_title: 'Cannot find User',
          error_user_msg: `The user with username: ${discovery[1]} cannot be found.`,
        });
      return {
        status: 200,
        body: {
          id: ig.id,
          business_discovery: {
            id: account.id,
            username: account.username,
            name: account.name,
            profile_picture_url: `https://scontent.cdninstagram.com/${account.id}.jpg`,
            followers_count: account.followers,
            media_count: account.media,
          },
        },
      };
    }
    if (req.method === 'GET' && edge.length === 0)
      return {
        status: 200,
        body: {
          id: ig.id,
          ...(fields.includes('followers_count') && {
            followers_count: this.followers.get(ig.id) ?? 0,
            follows_count: 12,
            media_count: this.igMedia.length,
          }),
        },
      };
    if (req.method === 'GET' && edge[0] === 'content_publishing_limit')
      return {
        status: 200,
        body: { data: [{ quota_usage: this.quotaUsage, config: { quota_total: this.quotaTotal, quota_duration: 86400 } }] },
      };
    if (req.method === 'POST' && edge[0] === 'media') {
      const params = Object.fromEntries(f);
      const type = params.media_type ?? 'IMAGE';
      if ([...(params.caption ?? '')].length > 2200) return graphError(400, 'The caption is too long.', 100, { error_subcode: 2207010 });
      if (type === 'CAROUSEL') {
        const children = (params.children ?? '').split(',').filter(Boolean);
        if (children.length < 2 || children.length > 10 || children.some((c) => this.containers.get(c)?.params.is_carousel_item !== 'true'))
          return graphError(400, 'Invalid carousel children.', 100, { error_subcode: 2207028 });
      } else if (
        ['REELS', 'VIDEO'].includes(type)
          ? !params.video_url
          : type === 'STORIES'
            ? !params.image_url && !params.video_url
            : !params.image_url
      ) {
        return graphError(400, 'The media URL is missing.', 100, { error_subcode: 2207023 });
      }
      if (params.collaborators && (JSON.parse(params.collaborators) as string[]).length > 3)
        return graphError(400, 'Too many collaborators.', 100);
      const tagsProblem = FakeMeta.#userTagsProblem(params, type);
      if (tagsProblem) return graphError(400, `(#100) ${tagsProblem}`, 100);
      if ((params.cover_url !== undefined || params.thumb_offset !== undefined) && type !== 'REELS')
        return graphError(400, '(#100) cover_url and thumb_offset apply to reels only', 100);
      if (params.thumb_offset !== undefined && !/^\d+$/.test(params.thumb_offset))
        return graphError(400, '(#100) Param thumb_offset must be a number of milliseconds', 100);
      const id = this.#id();
      this.containers.set(id, { id, owner: ig.id, params, polls: 0, state: type === 'CAROUSEL' ? 'IN_PROGRESS' : 'IN_PROGRESS' });
      return { status: 200, body: { id } };
    }
    if (req.method === 'POST' && edge[0] === 'media_publish') {
      const item = this.containers.get(f.get('creation_id') ?? '');
      if (!item || item.owner !== ig.id) return graphError(400, 'The media container does not exist.', 24, { error_subcode: 4279009 });
      if (item.state === 'PUBLISHED') return graphError(400, 'The media was already published.', 10);
      if (item.state !== 'FINISHED')
        return graphError(400, 'Media ID is not available', 9007, {
          error_subcode: 2207027,
          error_user_msg: 'The media is not ready for publishing, please wait for a moment',
        });
      if (this.quotaUsage >= this.quotaTotal)
        return graphError(400, 'Application request limit reached', 9, {
          error_subcode: 2207042,
          error_user_msg: 'You reached the maximum number of posts allowed.',
        });
      item.state = 'PUBLISHED';
      this.quotaUsage++;
      const children =
        item.params.media_type === 'CAROUSEL' ? item.params.children!.split(',').map((c) => this.containers.get(c)!) : [item];
      const id = this.#id();
      this.igMedia.push({
        id,
        owner: ig.id,
        type: item.params.media_type ?? 'IMAGE',
        caption: item.params.caption ?? '',
        urls: children.map((c) => c.params.image_url ?? c.params.video_url ?? ''),
        params: item.params,
      });
      return { status: 200, body: { id } };
    }
    return graphError(400, 'Unsupported request.', 100);
  }

  /**
   * What is wrong with a container's `user_tags`: a JSON array of {username, x, y}, x and y from 0
   * to 1, on an image (a post's or a carousel item's; the carousel container itself takes none here).
   */
  static #userTagsProblem(params: Record<string, string>, type: string): string | null {
    if (params.user_tags === undefined) return null;
    if (type !== 'IMAGE' || !params.image_url) return 'user_tags are taken on images here (and on carousel items, not the carousel)';
    let tags: unknown;
    try {
      tags = JSON.parse(params.user_tags);
    } catch {
      return 'Param user_tags must be a JSON array';
    }
    const inside = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 1;
    const valid =
      Array.isArray(tags) &&
      tags.every((tag: Record<string, unknown>) => typeof tag?.username === 'string' && inside(tag.x) && inside(tag.y));
    return valid ? null : 'Param user_tags must list {username, x, y} with x and y between 0 and 1';
  }

  #igMediaNode(req: FakeRequest, media: FakeIgMedia, edge: string | undefined, fields: string): FakeAnswer {
    if (req.method === 'POST' && edge === 'comments') {
      if (media.type === 'STORIES') return graphError(400, 'Stories cannot be commented on.', 100);
      return this.#comment(req, media.id, false);
    }
    const product = media.type === 'REELS' ? 'REELS' : media.type === 'STORIES' ? 'STORY' : 'FEED';
    if (req.method === 'GET' && edge === 'insights') {
      const counts = this.insights.get(media.id) ?? {};
      const metrics = (req.query.get('metric') ?? '').split(',').filter(Boolean);
      const allowed: Record<string, string[]> = {
        FEED: ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions', 'profile_visits', 'follows'],
        REELS: ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions', 'ig_reels_video_view_total_time'],
        STORY: ['views', 'reach', 'shares', 'total_interactions', 'profile_visits', 'replies'],
      };
      const wrong = metrics.find((m) => !allowed[product]!.includes(m));
      if (wrong)
        return graphError(400, `(#100) The Media Insights API does not support the ${wrong} metric for this media product type.`, 100);
      return {
        status: 200,
        body: {
          data: metrics.map((name) => ({
            name,
            period: 'lifetime',
            values: [{ value: counts[name] ?? 0 }],
            id: `${media.id}/insights/${name}/lifetime`,
          })),
        },
      };
    }
    if (req.method === 'GET' && !edge) {
      const counts = this.insights.get(media.id) ?? {};
      return {
        status: 200,
        body: {
          id: media.id,
          permalink: `https://www.instagram.com/p/${media.id.slice(-11)}/`,
          media_product_type: product,
          ...(fields.includes('like_count') && { like_count: counts.likes ?? 0, comments_count: counts.comments ?? 0 }),
        },
      };
    }
    return graphError(400, 'Unsupported request.', 100);
  }
}
