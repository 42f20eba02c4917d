// A local server speaking Pinterest API v5 (api.pinterest.com/v5, and www.pinterest.com's OAuth
// page) for what Herald uses: the authorization-code flow and refresh at /v5/oauth/token (the app
// by HTTP Basic), /user_account, boards and their sections (paged by bookmark), pins by image URL,
// several image URLs (2–5) or a video media id, video registration (POST /media), the upload to
// the address it gives (multipart with its upload parameters), the media's processing states, pin
// analytics, the rate limit, and errors as `{code, message}`.
import { randomBytes } from 'node:crypto';
import { bearer, FakeServer, type FakeAnswer, type FakeRequest } from './fake-server.ts';

type User = { id: string; username: string; businessName: string };
type Board = { id: string; name: string; owner: string; sections: Array<{ id: string; name: string }> };
type Media = { id: string; owner: string; uploaded: boolean; polls: number; file: { name: string; type: string; size: number } | null };
export type FakePin = { id: string; owner: string; body: Record<string, unknown> };

const pinError = (status: number, code: number, message: string, headers?: Record<string, string>): FakeAnswer => ({
  status,
  body: { code, message },
  ...(headers && { headers }),
});

export class FakePinterest extends FakeServer {
  appId = '1509876';
  appSecret = 'pinterest-app-secret';
  expiresIn = 2_592_000;
  refreshExpiresIn = 5_184_000;
  refuseRefresh = false;
  refreshes = 0;
  /** Status checks an uploaded video stays `processing` before `succeeded`. */
  processingPolls = 2;
  failNextMedia = false;
  /** Requests left before 429 (null: no limit). */
  requestsLeft: number | null = null;
  signedIn: User = { id: '549755885175', username: 'heraldpins', businessName: 'Herald Pins' };
  readonly boards: Board[] = [];
  readonly pins: FakePin[] = [];
  readonly media = new Map<string, Media>();
  readonly analytics = new Map<string, Record<string, number>>();
  followers = 0;
  #codes = new Map<string, { redirectUri: string; user: User }>();
  #tokens = new Map<string, User>();
  #refresh = new Map<string, User>();
  #next = 1_039_000_000_000_000n;

  constructor() {
    super();
    for (let i = 0; i < 120; i++)
      this.boards.push({
        id: String(987_000_000_000_000 + i),
        name: i === 0 ? 'Launches' : `Board ${i}`,
        owner: this.signedIn.id,
        sections: i === 0 ? [{ id: '5000000000000001', name: 'Spring' }] : [],
      });
  }

  override reset(): void {
    super.reset();
    this.pins.length = 0;
    this.media.clear();
    this.analytics.clear();
    this.refreshes = 0;
    this.failNextMedia = false;
    this.requestsLeft = null;
  }

  #id(): string {
    this.#next += 1n;
    return String(this.#next);
  }

  #issue(user: User, refresh: boolean): FakeAnswer {
    const access = `pina_${randomBytes(16).toString('hex')}`;
    this.#tokens.set(access, user);
    const body: Record<string, unknown> = {
      access_token: access,
      token_type: 'bearer',
      expires_in: this.expiresIn,
      scope: 'boards:read,pins:read,pins:write,user_accounts:read',
      response_type: refresh ? 'refresh_token' : 'authorization_code',
    };
    const token = `pinr_${randomBytes(16).toString('hex')}`;
    this.#refresh.set(token, user);
    body.refresh_token = token;
    body.refresh_token_expires_in = this.refreshExpiresIn;
    return { status: 200, body };
  }

  protected async handle(req: FakeRequest): Promise<FakeAnswer> {
    if (req.method === 'GET' && req.path === '/oauth/') {
      const q = req.query;
      if (
        q.get('client_id') !== this.appId ||
        q.get('response_type') !== 'code' ||
        !(q.get('scope') ?? '').split(',').includes('pins:write')
      )
        return { status: 400, body: 'bad authorize request' };
      const code = randomBytes(8).toString('hex');
      this.#codes.set(code, { redirectUri: q.get('redirect_uri')!, user: this.signedIn });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: back.toString() } };
    }
    if (req.method === 'POST' && req.path === '/v5/oauth/token') {
      const basic = `Basic ${Buffer.from(`${this.appId}:${this.appSecret}`).toString('base64')}`;
      if (req.headers.authorization !== basic) return pinError(401, 2, 'Authentication failed.');
      const f = req.form;
      if (f.get('grant_type') === 'authorization_code') {
        const code = this.#codes.get(f.get('code') ?? '');
        this.#codes.delete(f.get('code') ?? '');
        if (!code || code.redirectUri !== f.get('redirect_uri')) return pinError(400, 1, 'Invalid authorization code.');
        return this.#issue(code.user, false);
      }
      if (f.get('grant_type') === 'refresh_token') {
        const user = this.#refresh.get(f.get('refresh_token') ?? '');
        if (!user || this.refuseRefresh) return pinError(400, 1, 'Invalid refresh token.');
        this.refreshes++;
        return this.#issue(user, true);
      }
      return pinError(400, 1, 'Unsupported grant type.');
    }
    if (req.method === 'POST' && req.path === '/media-upload/') return this.#upload(req);
    const user = this.#tokens.get(bearer(req) ?? '');
    if (!user) return pinError(401, 2, 'Authentication failed.');
    if (this.requestsLeft !== null) {
      if (this.requestsLeft <= 0) return pinError(429, 8, 'You have exceeded your rate limit. Try again later.', { 'retry-after': '60' });
      this.requestsLeft--;
    }
    if (req.method === 'GET' && req.path === '/v5/user_account')
      return {
        status: 200,
        body: {
          account_type: 'BUSINESS',
          id: user.id,
          username: user.username,
          business_name: user.businessName,
          profile_image: 'https://i.pinimg.com/avatar.jpg',
          follower_count: this.followers,
          following_count: 4,
          pin_count: this.pins.filter((p) => p.owner === user.id).length,
        },
      };
    if (req.method === 'GET' && req.path === '/v5/boards') {
      const own = this.boards.filter((b) => b.owner === user.id);
      const size = Math.min(250, Number(req.query.get('page_size') ?? 25));
      const from = Number(req.query.get('bookmark') ?? 0);
      const items = own
        .slice(from, from + size)
        .map((b) => ({ id: b.id, name: b.name, privacy: 'PUBLIC', owner: { username: user.username } }));
      return { status: 200, body: { items, bookmark: from + size < own.length ? String(from + size) : null } };
    }
    const sections = /^\/v5\/boards\/(\d+)\/sections$/.exec(req.path);
    if (req.method === 'GET' && sections) {
      const board = this.boards.find((b) => b.id === sections[1] && b.owner === user.id);
      if (!board) return pinError(404, 40, 'Board not found.');
      return { status: 200, body: { items: board.sections, bookmark: null } };
    }
    if (req.method === 'POST' && req.path === '/v5/media') {
      if (req.json.media_type !== 'video') return pinError(400, 1, 'Invalid media type.');
      const id = this.#id();
      this.media.set(id, { id, owner: user.id, uploaded: false, polls: 0, file: null });
      return {
        status: 201,
        body: {
          media_id: id,
          media_type: 'video',
          upload_url: `${this.url}/media-upload/`,
          upload_parameters: {
            key: `uploads/${id}.mp4`,
            'x-amz-algorithm': 'AWS4-HMAC-SHA256',
            policy: 'eyJleHBpcmF0aW9uIjoi',
            'x-amz-signature': 'abc123',
          },
        },
      };
    }
    const media = /^\/v5\/media\/(\d+)$/.exec(req.path);
    if (req.method === 'GET' && media) {
      const item = this.media.get(media[1]!);
      if (!item || item.owner !== user.id) return pinError(404, 2, 'Media not found.');
      if (!item.uploaded) return { status: 200, body: { media_id: item.id, media_type: 'video', status: 'registered' } };
      item.polls++;
      if (item.polls <= this.processingPolls)
        return { status: 200, body: { media_id: item.id, media_type: 'video', status: 'processing' } };
      if (this.failNextMedia) return { status: 200, body: { media_id: item.id, media_type: 'video', status: 'failed' } };
      return { status: 200, body: { media_id: item.id, media_type: 'video', status: 'succeeded' } };
    }
    if (req.method === 'POST' && req.path === '/v5/pins') return this.#pin(req, user);
    const analytics = /^\/v5\/pins\/(\d+)\/analytics$/.exec(req.path);
    if (req.method === 'GET' && analytics) {
      const pin = this.pins.find((p) => p.id === analytics[1] && p.owner === user.id);
      if (!pin) return pinError(404, 50, 'Pin not found.');
      if (!req.query.get('start_date') || !req.query.get('end_date')) return pinError(400, 1, 'start_date and end_date are required.');
      const types = (req.query.get('metric_types') ?? '').split(',');
      const counts = this.analytics.get(pin.id) ?? {};
      const summary = Object.fromEntries(types.filter((t) => counts[t] !== undefined).map((t) => [t, counts[t]]));
      return { status: 200, body: { all: { daily_metrics: [], summary_metrics: summary } } };
    }
    return pinError(404, 404, `Unknown path ${req.method} ${req.path}`);
  }

  async #upload(req: FakeRequest): Promise<FakeAnswer> {
    const form = await req.multipart();
    const key = form.get('key');
    const id = typeof key === 'string' ? /^uploads\/(\d+)\.mp4$/.exec(key)?.[1] : undefined;
    const item = id ? this.media.get(id) : undefined;
    const file = form.get('file');
    if (!item || form.get('x-amz-signature') !== 'abc123' || form.get('policy') !== 'eyJleHBpcmF0aW9uIjoi' || !(file instanceof File))
      return { status: 403, body: '<Error><Code>AccessDenied</Code></Error>' };
    item.file = { name: file.name, type: file.type, size: file.size };
    item.uploaded = true;
    return { status: 204 };
  }

  #pin(req: FakeRequest, user: User): FakeAnswer {
    const body = req.json;
    const board = this.boards.find((b) => b.id === body.board_id && b.owner === user.id);
    if (!board) return pinError(404, 40, 'Board not found.');
    if (body.board_section_id && !board.sections.some((s) => s.id === body.board_section_id))
      return pinError(404, 41, 'Board section not found.');
    if (String(body.title ?? '').length > 100) return pinError(400, 1, 'Invalid parameters: title is too long.');
    if ([...String(body.description ?? '')].length > 800) return pinError(400, 1, 'Invalid parameters: description is too long.');
    if (String(body.alt_text ?? '').length > 500) return pinError(400, 1, 'Invalid parameters: alt_text is too long.');
    if (String(body.link ?? '').length > 2048) return pinError(400, 1, 'Invalid parameters: link is too long.');
    const source = (body.media_source ?? {}) as Record<string, unknown>;
    if (source.source_type === 'image_url' && typeof source.url !== 'string') return pinError(400, 1, 'media_source.url is required.');
    if (source.source_type === 'multiple_image_urls') {
      const items = Array.isArray(source.items) ? source.items : [];
      if (items.length < 2 || items.length > 5) return pinError(400, 1, 'multiple_image_urls takes 2 to 5 items.');
    }
    if (source.source_type === 'video_id') {
      const item = this.media.get(String(source.media_id));
      if (!item || item.owner !== user.id || item.polls <= this.processingPolls)
        return pinError(400, 2988, 'The video is not uploaded or not processed yet.');
      if (source.cover_image_url === undefined && source.cover_image_key_frame_time === undefined)
        return pinError(400, 1, 'A video pin needs a cover image.');
    }
    if (!['image_url', 'multiple_image_urls', 'video_id'].includes(String(source.source_type)))
      return pinError(400, 1, 'Invalid media_source.');
    const id = this.#id();
    this.pins.push({ id, owner: user.id, body });
    return { status: 201, body: { id, board_id: board.id, created_at: new Date().toISOString(), ...body } };
  }
}
