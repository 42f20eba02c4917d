// A local server speaking LinkedIn's API for what Herald uses: the OAuth 2.0 authorization-code
// flow (client secret in the form), refresh tokens where the app has them, /v2/userinfo (OpenID),
// organizationAcls and organizations (pages a member administers), the Images and Videos APIs'
// initialize-upload flow with the byte upload to the returned URL, the versioned Posts API
// (LinkedIn-Version and X-Restli-Protocol-Version required; the id in x-restli-id), comments
// through socialActions (text up to 1,250 characters, with one uploaded image as content), and
// LinkedIn's Rest.li error answers; and the numbers: memberCreatorPostAnalytics (one query type a
// call, for tokens granted r_member_postAnalytics), organizationalEntityShareStatistics (a page's
// posts named in List() parameters, for its administrators) and networkSizes (a page's followers).
import { randomBytes } from 'node:crypto';
import { bearer, FakeServer, type FakeAnswer, type FakeRequest } from './fake-server.ts';

export type FakeLinkedInPost = {
  id: string;
  author: string;
  commentary: string;
  visibility: string;
  content: Record<string, unknown> | null;
  comments: Array<{ id: string; actor: string; text: string; image: string | null }>;
};
type Member = { sub: string; name: string; scopes?: string[] };

export class FakeLinkedIn extends FakeServer {
  clientId = 'li-client-id';
  clientSecret = 'li-client-secret';
  expiresIn = 5_184_000;
  /** Whether the app was granted refresh tokens (LinkedIn's approved partners). */
  issueRefreshTokens = true;
  refuseRefresh = false;
  refreshes = 0;
  signedIn: Member = { sub: 'abc123XYZ', name: 'Lena Linked' };
  /** Pages (organization ids) each member administers. */
  readonly admins = new Map<string, string[]>([['abc123XYZ', ['5515715']]]);
  readonly organizations = new Map<string, { localizedName: string; vanityName: string }>([
    ['5515715', { localizedName: 'Herald Inc', vanityName: 'herald-inc' }],
  ]);
  readonly posts: FakeLinkedInPost[] = [];
  /** Numbers by post URN: memberCreatorPostAnalytics query types (IMPRESSION…) and totalShareStatistics fields (impressionCount…). */
  readonly stats = new Map<string, Record<string, number>>();
  pageFollowers = 0;
  /** Scopes the sign-in does not grant though asked (the app lacks the product, or the person declines). */
  declined: string[] = [];
  readonly images = new Map<string, { owner: string; bytes: number; uploaded: boolean }>();
  /** Videos: the parts' ETags as uploaded, whether finalized, and status checks so far. */
  readonly videos = new Map<string, { owner: string; size: number; parts: string[]; finalized: boolean; polls: number }>();
  #codes = new Map<string, { redirectUri: string; member: Member }>();
  #access = new Map<string, Member>();
  #refresh = new Map<string, Member>();
  #next = 7_000_000_000_000_000_000n;

  override reset(): void {
    super.reset();
    this.posts.length = 0;
    this.stats.clear();
    this.pageFollowers = 0;
    this.declined = [];
    this.refreshes = 0;
  }

  #id(): string {
    this.#next += 1n;
    return String(this.#next);
  }

  #issue(member: Member): FakeAnswer {
    const access = `AQV${randomBytes(16).toString('hex')}`;
    const refresh = `AQX${randomBytes(16).toString('hex')}`;
    this.#access.set(access, member);
    if (this.issueRefreshTokens) this.#refresh.set(refresh, member);
    return {
      status: 200,
      body: {
        access_token: access,
        expires_in: this.expiresIn,
        scope: 'openid,profile,w_member_social',
        ...(this.issueRefreshTokens && { refresh_token: refresh, refresh_token_expires_in: 31_536_000 }),
      },
    };
  }

  protected async handle(req: FakeRequest): Promise<FakeAnswer> {
    if (req.method === 'GET' && req.path === '/oauth/v2/authorization') {
      const q = req.query;
      if (q.get('client_id') !== this.clientId || q.get('response_type') !== 'code') return { status: 400, body: 'bad authorize request' };
      const code = randomBytes(8).toString('hex');
      const scopes = (q.get('scope') ?? '').split(' ').filter((s) => s && !this.declined.includes(s));
      this.#codes.set(code, { redirectUri: q.get('redirect_uri')!, member: { ...this.signedIn, scopes } });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: back.toString() } };
    }
    if (req.method === 'POST' && req.path === '/oauth/v2/accessToken') {
      const f = req.form;
      if (f.get('client_id') !== this.clientId || f.get('client_secret') !== this.clientSecret)
        return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' } };
      if (f.get('grant_type') === 'authorization_code') {
        const code = this.#codes.get(f.get('code') ?? '');
        this.#codes.delete(f.get('code') ?? '');
        if (!code || code.redirectUri !== f.get('redirect_uri'))
          return {
            status: 400,
            body: { error: 'invalid_request', error_description: 'Unable to retrieve access token: authorization code not found' },
          };
        return this.#issue(code.member);
      }
      if (f.get('grant_type') === 'refresh_token') {
        const member = this.#refresh.get(f.get('refresh_token') ?? '');
        if (!member || this.refuseRefresh)
          return { status: 400, body: { error: 'invalid_request', error_description: 'The provided refresh token is invalid or expired' } };
        this.refreshes++;
        return this.#issue(member);
      }
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
    const part = /^\/video-upload\/(.+)\/(\d+)$/.exec(req.path);
    if (req.method === 'PUT' && part) {
      const video = this.videos.get(decodeURIComponent(part[1]!));
      if (!video) return { status: 404 };
      const etag = `etag-${part[2]}-${req.raw.length}`;
      video.parts[Number(part[2])] = etag;
      return { status: 200, headers: { etag } };
    }
    const upload = /^\/upload\/(.+)$/.exec(req.path);
    if (req.method === 'PUT' && upload) {
      const image = this.images.get(decodeURIComponent(upload[1]!));
      if (!image) return { status: 404 };
      image.uploaded = true;
      image.bytes = req.raw.length;
      return { status: 201, headers: { etag: `"${randomBytes(4).toString('hex')}"` } };
    }
    const member = this.#access.get(bearer(req) ?? '');
    if (!member)
      return { status: 401, body: { status: 401, serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN', message: 'Invalid access token' } };
    if (req.method === 'GET' && req.path === '/v2/userinfo')
      return {
        status: 200,
        body: {
          sub: member.sub,
          name: member.name,
          given_name: member.name.split(' ')[0],
          picture: 'https://media.licdn.com/dms/image/a.jpg',
        },
      };
    if (
      req.path.startsWith('/rest/') &&
      (req.headers['linkedin-version'] !== '202510' || req.headers['x-restli-protocol-version'] !== '2.0.0')
    ) {
      return { status: 426, body: { status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version is not active' } };
    }
    if (req.method === 'GET' && req.path === '/rest/organizationAcls') {
      const pages = this.admins.get(member.sub) ?? [];
      return {
        status: 200,
        body: {
          elements: pages.map((p) => ({
            organization: `urn:li:organization:${p}`,
            role: 'ADMINISTRATOR',
            state: 'APPROVED',
            roleAssignee: `urn:li:person:${member.sub}`,
          })),
          paging: { count: 100, start: 0 },
        },
      };
    }
    const org = /^\/rest\/organizations\/(\d+)$/.exec(req.path);
    if (req.method === 'GET' && org) {
      const found = this.organizations.get(org[1]!);
      return found
        ? { status: 200, body: { id: Number(org[1]), ...found } }
        : { status: 404, body: { status: 404, message: 'Organization not found' } };
    }
    const canAct = (urn: string) =>
      urn === `urn:li:person:${member.sub}` || (this.admins.get(member.sub) ?? []).some((p) => urn === `urn:li:organization:${p}`);
    if (req.method === 'POST' && req.path === '/rest/images' && req.query.get('action') === 'initializeUpload') {
      const owner = String((req.json.initializeUploadRequest as { owner?: string } | undefined)?.owner);
      if (!canAct(owner)) return { status: 403, body: { status: 403, message: `Not enough permissions to upload for ${owner}` } };
      const image = `urn:li:image:C4E${this.#id()}`;
      this.images.set(image, { owner, bytes: 0, uploaded: false });
      return {
        status: 200,
        body: { value: { uploadUrlExpiresAt: Date.now() + 3600_000, uploadUrl: `${this.url}/upload/${encodeURIComponent(image)}`, image } },
      };
    }
    if (req.method === 'POST' && req.path === '/rest/videos' && req.query.get('action') === 'initializeUpload') {
      const request = req.json.initializeUploadRequest as { owner: string; fileSizeBytes: number };
      if (!canAct(request.owner)) return { status: 403, body: { status: 403, message: 'Not enough permissions' } };
      const video = `urn:li:video:C5F${this.#id()}`;
      const partSize = 4 * 1024 * 1024;
      const instructions = [];
      for (let first = 0, i = 0; first < request.fileSizeBytes; first += partSize, i++) {
        instructions.push({
          uploadUrl: `${this.url}/video-upload/${encodeURIComponent(video)}/${i}`,
          firstByte: first,
          lastByte: Math.min(request.fileSizeBytes, first + partSize) - 1,
        });
      }
      this.videos.set(video, { owner: request.owner, size: request.fileSizeBytes, parts: [], finalized: false, polls: 0 });
      return {
        status: 200,
        body: { value: { uploadUrlsExpireAt: Date.now() + 3600_000, video, uploadInstructions: instructions, uploadToken: 'tok' } },
      };
    }
    if (req.method === 'POST' && req.path === '/rest/videos' && req.query.get('action') === 'finalizeUpload') {
      const request = req.json.finalizeUploadRequest as { video: string; uploadedPartIds: string[] };
      const video = this.videos.get(request.video);
      if (!video || JSON.stringify(video.parts) !== JSON.stringify(request.uploadedPartIds))
        return { status: 400, body: { status: 400, message: 'The uploaded part ids do not match' } };
      video.finalized = true;
      return { status: 200 };
    }
    const videoState = /^\/rest\/videos\/(.+)$/.exec(req.path);
    if (req.method === 'GET' && videoState) {
      const video = this.videos.get(decodeURIComponent(videoState[1]!));
      if (!video) return { status: 404, body: { status: 404, message: 'Video not found' } };
      video.polls++;
      return {
        status: 200,
        body: {
          id: decodeURIComponent(videoState[1]!),
          owner: video.owner,
          status: video.finalized && video.polls > 1 ? 'AVAILABLE' : 'PROCESSING',
        },
      };
    }
    if (req.method === 'POST' && req.path === '/rest/posts') {
      const body = req.json as {
        author?: string;
        commentary?: string;
        visibility?: string;
        content?: { media?: { id: string }; multiImage?: { images: Array<{ id: string }> } };
        lifecycleState?: string;
      };
      if (!body.author || !canAct(body.author))
        return { status: 403, body: { status: 403, message: `Not enough permissions to post as ${body.author}` } };
      if (body.lifecycleState !== 'PUBLISHED' || typeof body.commentary !== 'string')
        return { status: 422, body: { status: 422, message: 'commentary and lifecycleState are required' } };
      if ([...body.commentary].length > 3000) return { status: 422, body: { status: 422, message: 'Commentary is too long' } };
      if (this.posts.some((p) => p.author === body.author && p.commentary === body.commentary))
        return { status: 422, body: { status: 422, message: 'Content is a duplicate of urn:li:share:1' } };
      const ids = [body.content?.media?.id, ...(body.content?.multiImage?.images.map((i) => i.id) ?? [])].filter((i): i is string =>
        Boolean(i),
      );
      if (ids.some((i) => !this.images.get(i)?.uploaded && this.videos.get(i)?.polls === undefined))
        return { status: 422, body: { status: 422, message: 'Media asset is not ready' } };
      const id = `urn:li:share:${this.#id()}`;
      this.posts.push({
        id,
        author: body.author,
        commentary: body.commentary,
        visibility: body.visibility ?? '',
        content: (body.content as Record<string, unknown>) ?? null,
        comments: [],
      });
      return { status: 201, headers: { 'x-restli-id': id } };
    }
    const comments = /^\/rest\/socialActions\/([^/]+)\/comments$/.exec(req.path);
    if (req.method === 'POST' && comments) {
      const target = this.posts.find((p) => p.id === decodeURIComponent(comments[1]!));
      if (!target) return { status: 404, body: { status: 404, message: 'Post not found' } };
      const actor = String(req.json.actor);
      if (!canAct(actor)) return { status: 403, body: { status: 403, message: 'Not enough permissions to comment' } };
      const text = String((req.json.message as { text?: string } | undefined)?.text ?? '');
      if ([...text].length > 1250)
        return { status: 422, body: { status: 422, message: 'Comment message text length exceeds 1250 characters' } };
      const content = req.json.content as Array<{ entity?: { image?: string } }> | undefined;
      if (content !== undefined && (!Array.isArray(content) || content.length !== 1 || typeof content[0]?.entity?.image !== 'string')) {
        return { status: 422, body: { status: 422, message: 'A comment takes one content entity: an image' } };
      }
      const image = content?.[0]?.entity?.image ?? null;
      if (image !== null && (!this.images.get(image)?.uploaded || this.images.get(image)!.owner !== actor))
        return { status: 422, body: { status: 422, message: `Image ${image} is not uploaded for ${actor}` } };
      const id = `urn:li:comment:(${target.id},${this.#id()})`;
      target.comments.push({ id, actor, text, image });
      return { status: 201, headers: { 'x-restli-id': id }, body: { $URN: id, actor, object: target.id } };
    }
    if (req.method === 'GET' && req.path.startsWith('/rest/')) {
      const answer = this.#numbers(req, member, canAct);
      if (answer) return answer;
    }
    return { status: 404, body: { status: 404, message: `no route ${req.method} ${req.path}` } };
  }

  #numbers(req: FakeRequest, member: Member, canAct: (urn: string) => boolean): FakeAnswer | null {
    const denied = (what: string): FakeAnswer => ({
      status: 403,
      body: { status: 403, serviceErrorCode: 100, code: 'ACCESS_DENIED', message: `Not enough permissions to access: ${what}` },
    });
    const q = req.query;
    if (req.path === '/rest/memberCreatorPostAnalytics') {
      if (!member.scopes?.includes('r_member_postAnalytics')) return denied('memberCreatorPostAnalytics.FINDER-entity');
      const entity = /^\((share|ugcPost):(urn:li:(?:share|ugcPost):\d+)\)$/.exec(q.get('entity') ?? '');
      const type = q.get('queryType') ?? '';
      if (q.get('q') !== 'entity' || !entity || !['IMPRESSION', 'MEMBERS_REACHED', 'RESHARE', 'REACTION', 'COMMENT'].includes(type))
        return { status: 400, body: { status: 400, message: 'Invalid query parameters' } };
      const post = this.posts.find((p) => p.id === entity[2] && p.author === `urn:li:person:${member.sub}`);
      if (!post) return { status: 200, body: { paging: { start: 0, count: 10, links: [] }, elements: [] } };
      const metricType = { 'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1': type };
      const count = this.stats.get(post.id)?.[type] ?? 0;
      return {
        status: 200,
        body: { paging: { start: 0, count: 10, links: [] }, elements: [{ count, metricType, targetEntity: { [entity[1]!]: post.id } }] },
      };
    }
    if (req.path === '/rest/organizationalEntityShareStatistics') {
      const org = q.get('organizationalEntity') ?? '';
      if (q.get('q') !== 'organizationalEntity') return { status: 400, body: { status: 400, message: 'Invalid query parameters' } };
      if (!member.scopes?.includes('r_organization_admin') || !org.startsWith('urn:li:organization:') || !canAct(org))
        return denied('organizationalEntityShareStatistics.FINDER-organizationalEntity');
      const list = (name: string) =>
        /^List\((.*)\)$/
          .exec(q.get(name) ?? '')?.[1]
          ?.split(',')
          .filter(Boolean) ?? [];
      const elements = [...list('shares').map((urn) => ['share', urn]), ...list('ugcPosts').map((urn) => ['ugcPost', urn])]
        .filter(([, urn]) => this.posts.some((p) => p.id === urn && p.author === org))
        .map(([kind, urn]) => ({
          organizationalEntity: org,
          [kind!]: urn,
          totalShareStatistics: {
            uniqueImpressionsCount: 0,
            shareCount: 0,
            engagement: 0,
            clickCount: 0,
            likeCount: 0,
            impressionCount: 0,
            commentCount: 0,
            ...this.stats.get(urn!),
          },
        }));
      return { status: 200, body: { paging: { start: 0, count: 10, links: [] }, elements } };
    }
    const network = /^\/rest\/networkSizes\/(.+)$/.exec(req.path);
    if (network) {
      const org = decodeURIComponent(network[1]!);
      if (q.get('edgeType') !== 'COMPANY_FOLLOWED_BY_MEMBER') return { status: 400, body: { status: 400, message: 'Invalid edgeType' } };
      if (!canAct(org) || !org.startsWith('urn:li:organization:')) return denied('networkSizes');
      return { status: 200, body: { firstDegreeSize: this.pageFollowers } };
    }
    return null;
  }
}
