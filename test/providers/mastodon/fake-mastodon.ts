// A local server speaking the Mastodon REST API (https://docs.joinmastodon.org/methods/) for what
// Herald uses: app registration, the OAuth authorization-code flow with PKCE, verify_credentials,
// the instance configuration, media uploads processed asynchronously, statuses with
// Idempotency-Key, replies, content warnings, visibility, Mastodon's error answers, and the counts
// analytics reads: statuses by id (`GET /api/v1/statuses?id[]=`, 4.3+, at most 20, public and
// unlisted ones without a token) and the account's followers.
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { FakeHttpServer, parseBody, type FakeCall, type FakeReply } from '../../helpers/fake-http.ts';

export type FakeStatus = {
  id: string;
  url: string;
  uri: string;
  account: { id: string; acct: string };
  content: string;
  text: string;
  spoiler_text: string;
  visibility: string;
  sensitive: boolean;
  language: string | null;
  in_reply_to_id: string | null;
  media_attachments: Array<{ id: string; type: string; url: string; description: string | null }>;
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  /** Mastodon 4.5+ only (`reportsQuotes`). */
  quotes_count?: number;
};

type FakeAccount = {
  id: string;
  username: string;
  display_name: string;
  avatar: string;
  followers_count?: number;
  following_count?: number;
  statuses_count?: number;
};

type Answer = FakeReply;
/** What an override installed with `on` sees of a request. */
type Call = { method: string; path: string; body: Record<string, unknown> };

function countLikeMastodon(text: string): number {
  const normalized = text.replace(/https?:\/\/\S+/g, 'x'.repeat(23)).replace(/@(\w+)@[\w.-]+\.\w+/g, '@$1');
  return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(normalized)].length;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export class FakeMastodon extends FakeHttpServer<Call, Answer> {
  maxCharacters = 500;
  /** How many polls a media file stays in processing (206) before it is ready. */
  processingPolls = 2;
  readonly apps = new Map<string, { client_secret: string; redirect_uri: string; scopes: string }>();
  readonly accounts = new Map<string, FakeAccount>();
  /** Whether statuses carry `quotes_count` (Mastodon 4.5+). */
  reportsQuotes = true;
  readonly tokens = new Map<string, string>();
  readonly statuses: FakeStatus[] = [];
  readonly media = new Map<
    string,
    { id: string; type: string; description: string | null; polls: number; size: number; account: string }
  >();
  #codes = new Map<string, { clientId: string; redirectUri: string; challenge: string | null; account: string }>();
  #idempotency = new Map<string, FakeStatus>();
  #next = 1000;
  /** The account that "signs in" when the authorize page is opened. */
  signedIn = '1';

  constructor() {
    super();
    this.addAccount({ id: '1', username: 'alice', display_name: 'Alice Example', avatar: '' });
    this.addAccount({ id: '2', username: 'bob', display_name: '', avatar: '' });
  }

  addAccount(account: FakeAccount): void {
    this.accounts.set(account.id, account);
  }

  /** A personal access token, as made under Preferences → Development. */
  tokenFor(accountId: string): string {
    const token = `tok_${randomBytes(16).toString('hex')}`;
    this.tokens.set(token, accountId);
    return token;
  }

  /** Every request, in order of arrival. */
  get calls(): FakeCall[] {
    return this.received;
  }

  override async start(): Promise<this> {
    await super.start();
    for (const account of this.accounts.values()) account.avatar ||= `${this.url}/avatars/${account.id}.png`;
    return this;
  }

  get host(): string {
    return new URL(this.url).host;
  }

  find(id: string): FakeStatus | undefined {
    return this.statuses.find((s) => s.id === id);
  }

  protected async serve(call: FakeCall): Promise<Answer> {
    const { fields, files } = await parseBody(call);
    const body = { ...Object.fromEntries(call.url.searchParams), ...fields };
    const scripted = this.scripted.take({ method: call.method, path: call.path, body });
    if (scripted) return scripted;
    if (call.method === 'GET' && call.path === '/api/v1/statuses')
      return this.#statusesById(call.url.searchParams.getAll('id[]'), call.headers);
    return this.#route(call.method, call.path, body, files, call.headers);
  }

  /** `GET /api/v1/statuses?id[]=…`: the statuses the caller may see, unknown ids left out; more than 20 ids is refused. */
  #statusesById(ids: string[], headers: http.IncomingHttpHeaders): Answer {
    if (ids.length > 20) return { status: 422, body: { error: 'Too many ids (at most 20)' } };
    const account = this.#account(headers);
    const visible = this.statuses.filter(
      (s) => ids.includes(s.id) && (s.visibility === 'public' || s.visibility === 'unlisted' || s.account.id === account),
    );
    return { status: 200, body: visible.map((s) => this.#withCounts(s)) };
  }

  #withCounts(status: FakeStatus): FakeStatus {
    if (this.reportsQuotes) return { ...status, quotes_count: status.quotes_count ?? 0 };
    const { quotes_count: _hidden, ...older } = status;
    return older;
  }

  #account(headers: http.IncomingHttpHeaders): string | undefined {
    const token = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    return token ? this.tokens.get(token) : undefined;
  }

  #publicAccount(id: string) {
    const a = this.accounts.get(id)!;
    return {
      id: a.id,
      username: a.username,
      acct: a.username,
      display_name: a.display_name,
      avatar: a.avatar,
      url: `${this.url}/@${a.username}`,
      followers_count: a.followers_count ?? 0,
      following_count: a.following_count ?? 0,
      statuses_count: a.statuses_count ?? this.statuses.filter((s) => s.account.id === a.id).length,
    };
  }

  #route(method: string, path: string, body: Record<string, unknown>, files: Map<string, File>, headers: http.IncomingHttpHeaders): Answer {
    const unauthorized: Answer = { status: 401, body: { error: 'The access token is invalid' } };
    if (method === 'POST' && path === '/api/v1/apps') {
      if (!body.client_name || !body.redirect_uris)
        return { status: 422, body: { error: "Validation failed: Name can't be blank, Redirect URI can't be blank" } };
      const clientId = `cid_${randomBytes(8).toString('hex')}`;
      const secret = `csec_${randomBytes(16).toString('hex')}`;
      this.apps.set(clientId, { client_secret: secret, redirect_uri: String(body.redirect_uris), scopes: String(body.scopes ?? 'read') });
      return {
        status: 200,
        body: {
          id: String(this.#next++),
          name: body.client_name,
          redirect_uri: body.redirect_uris,
          client_id: clientId,
          client_secret: secret,
        },
      };
    }
    if (method === 'GET' && path === '/oauth/authorize') {
      const app = this.apps.get(String(body.client_id));
      if (!app || app.redirect_uri !== body.redirect_uri) return { status: 400, body: { error: 'invalid_client' } };
      const requested = String(body.scope ?? '').split(' ');
      const granted = app.scopes.split(' ');
      if (!requested.every((s) => granted.includes(s))) return { status: 400, body: { error: 'invalid_scope' } };
      const code = `code_${randomBytes(8).toString('hex')}`;
      this.#codes.set(code, {
        clientId: String(body.client_id),
        redirectUri: String(body.redirect_uri),
        challenge: body.code_challenge ? String(body.code_challenge) : null,
        account: this.signedIn,
      });
      const back = new URL(app.redirect_uri);
      back.searchParams.set('code', code);
      if (body.state) back.searchParams.set('state', String(body.state));
      return { status: 302, body: undefined, headers: { location: back.toString() } };
    }
    if (method === 'POST' && path === '/oauth/token') {
      const grant = this.#codes.get(String(body.code));
      const app = this.apps.get(String(body.client_id));
      if (!app || app.client_secret !== body.client_secret)
        return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed due to unknown client.' } };
      if (!grant || grant.clientId !== body.client_id || grant.redirectUri !== body.redirect_uri) {
        return {
          status: 400,
          body: {
            error: 'invalid_grant',
            error_description:
              'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
          },
        };
      }
      if (
        grant.challenge &&
        createHash('sha256')
          .update(String(body.code_verifier ?? ''))
          .digest('base64url') !== grant.challenge
      )
        return { status: 400, body: { error: 'invalid_grant', error_description: 'PKCE verification failed.' } };
      this.#codes.delete(String(body.code));
      return { status: 200, body: { access_token: this.tokenFor(grant.account), token_type: 'Bearer', scope: app.scopes, created_at: 0 } };
    }
    if (method === 'GET' && path === '/api/v2/instance') {
      return {
        status: 200,
        body: {
          domain: this.host,
          configuration: { statuses: { max_characters: this.maxCharacters, max_media_attachments: 4, characters_reserved_per_url: 23 } },
        },
      };
    }
    const account = this.#account(headers);
    if (method === 'GET' && path === '/api/v1/accounts/verify_credentials')
      return account ? { status: 200, body: this.#publicAccount(account) } : unauthorized;
    if (method === 'POST' && path === '/api/v2/media') {
      if (!account) return unauthorized;
      const file = files.get('file');
      if (!file) return { status: 422, body: { error: "Validation failed: File can't be blank" } };
      const id = String(this.#next++);
      const type = file.type.startsWith('video/') ? 'video' : 'image';
      this.media.set(id, { id, type, description: body.description ? String(body.description) : null, polls: 0, size: file.size, account });
      const ready = this.processingPolls === 0;
      return {
        status: ready ? 200 : 202,
        body: { id, type, url: ready ? `${this.url}/media/${id}` : null, description: body.description ?? null },
      };
    }
    const mediaMatch = /^\/api\/v1\/media\/(\d+)$/.exec(path);
    if (method === 'GET' && mediaMatch) {
      if (!account) return unauthorized;
      const media = this.media.get(mediaMatch[1]!);
      if (!media || media.account !== account) return { status: 404, body: { error: 'Record not found' } };
      media.polls += 1;
      const ready = media.polls > this.processingPolls;
      return {
        status: ready ? 200 : 206,
        body: { id: media.id, type: media.type, url: ready ? `${this.url}/media/${media.id}` : null, description: media.description },
      };
    }
    if (method === 'POST' && path === '/api/v1/statuses') return account ? this.#postStatus(account, body, headers) : unauthorized;
    return { status: 404, body: { error: 'Record not found' } };
  }

  #postStatus(account: string, body: Record<string, unknown>, headers: http.IncomingHttpHeaders): Answer {
    const key = headers['idempotency-key'];
    if (typeof key === 'string') {
      const earlier = this.#idempotency.get(`${account}/${key}`);
      if (earlier) return { status: 200, body: earlier };
    }
    const text = String(body.status ?? '');
    const mediaIds = (body.media_ids as string[] | undefined) ?? [];
    if (!text.trim() && mediaIds.length === 0) return { status: 422, body: { error: "Validation failed: Text can't be blank" } };
    const spoiler = String(body.spoiler_text ?? '');
    if (countLikeMastodon(text) + countLikeMastodon(spoiler) > this.maxCharacters)
      return { status: 422, body: { error: `Validation failed: Text character limit of ${this.maxCharacters} exceeded` } };
    const attachments = [];
    for (const id of mediaIds) {
      const media = this.media.get(id);
      if (!media || media.account !== account) return { status: 422, body: { error: 'Validation failed: Media attachments are invalid' } };
      if (media.polls <= this.processingPolls && this.processingPolls > 0)
        return { status: 422, body: { error: 'Cannot attach files that have not finished processing. Try again in a moment!' } };
      attachments.push({ id, type: media.type, url: `${this.url}/media/${id}`, description: media.description });
    }
    const replyTo = body.in_reply_to_id ? String(body.in_reply_to_id) : null;
    if (replyTo && !this.find(replyTo)) return { status: 404, body: { error: 'Record not found' } };
    const visibility = String(body.visibility ?? 'public');
    if (!['public', 'unlisted', 'private', 'direct'].includes(visibility))
      return { status: 422, body: { error: 'Validation failed: Visibility is not included in the list' } };
    const id = String(this.#next++);
    const { username } = this.accounts.get(account)!;
    const status: FakeStatus = {
      id,
      url: `${this.url}/@${username}/${id}`,
      uri: `${this.url}/users/${username}/statuses/${id}`,
      account: { id: account, acct: username },
      content: `<p>${escapeHtml(text).replace(/\n\n/g, '</p><p>').replace(/\n/g, '<br />')}</p>`,
      text,
      spoiler_text: spoiler,
      visibility,
      sensitive: body.sensitive === true || spoiler !== '',
      language: body.language ? String(body.language) : null,
      in_reply_to_id: replyTo,
      media_attachments: attachments,
      favourites_count: 0,
      reblogs_count: 0,
      replies_count: 0,
    };
    this.statuses.push(status);
    if (typeof key === 'string') this.#idempotency.set(`${account}/${key}`, status);
    return { status: 200, body: status };
  }
}
