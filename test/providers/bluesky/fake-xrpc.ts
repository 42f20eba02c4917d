// A small XRPC server on loopback that answers as Bluesky's PDS documents it (sessions, records,
// blobs, handles) and as the AppView it proxies answers counts (`app.bsky.feed.getPosts`, 25 URIs
// at most; `app.bsky.actor.getProfile`), so tests can make it fail in the ways Bluesky fails:
// rate limits, 5xx, expired tokens, answers that never come.
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { FakeHttpServer, sendReply, type FakeCall, type FakeReply } from '../../helpers/fake-http.ts';
import { cidFor } from './helpers.ts';

export type FakeRequest = {
  method: string;
  nsid: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  token: string | undefined;
};
export type FakeAnswer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang' | 'destroy';
export type FakeHandler = (req: FakeRequest, next: () => FakeAnswer) => FakeAnswer;

export type FakeAccount = { did: string; handle: string; appPassword: string };

export class FakeXrpc extends FakeHttpServer<FakeRequest> {
  readonly account: FakeAccount = { did: 'did:plc:fakealice0000000000000000', handle: 'alice.test', appPassword: 'abcd-efgh-ijkl-mnop' };
  readonly others = new Map<string, string>([['bob.test', 'did:plc:fakebob00000000000000000000']]);
  /** Every request, in order. */
  readonly requests: FakeRequest[] = [];
  readonly records = new Map<string, { uri: string; cid: string; value: Record<string, unknown> }>();
  readonly access = new Set<string>();
  /** The AppView's counts of a post, by URI (a post without an entry has all counts 0). */
  readonly counts = new Map<string, Partial<Record<'likeCount' | 'repostCount' | 'replyCount' | 'quoteCount' | 'bookmarkCount', number>>>();
  readonly profile = { followersCount: 0, followsCount: 0 };
  readonly refresh = new Set<string>();
  private readonly overrides = new Map<string, FakeHandler>();

  /** Answers `nsid` with `handler` (which may call `next()` for the normal answer). */
  override on(nsid: string | ((req: FakeRequest) => FakeReply | undefined), handler?: FakeHandler): void {
    if (typeof nsid === 'string') this.overrides.set(nsid, handler!);
    else super.on(nsid);
  }

  calls(nsid: string): FakeRequest[] {
    return this.requests.filter((r) => r.nsid === nsid);
  }

  /** Makes every access token issued so far expired. */
  expireAccessTokens(): void {
    this.access.clear();
  }

  protected serve(call: FakeCall, res: http.ServerResponse): void {
    const nsid = call.path.replace(/^\/xrpc\//, '');
    const auth = call.headers.authorization;
    const request: FakeRequest = {
      method: call.method,
      nsid,
      query: call.url.searchParams,
      headers: call.headers,
      body: call.raw,
      token: auth?.replace(/^Bearer /, ''),
    };
    this.requests.push(request);
    const override = this.overrides.get(nsid);
    const answer = override ? override(request, () => this.answer(request)) : this.answer(request);
    if (answer === 'hang') return; // never answers; the client's timeout ends it
    if (answer === 'destroy') res.socket?.destroy();
    else sendReply(res, answer);
  }

  private session() {
    const accessJwt = `access-${randomUUID()}`;
    const refreshJwt = `refresh-${randomUUID()}`;
    this.access.add(accessJwt);
    this.refresh.add(refreshJwt);
    return { accessJwt, refreshJwt, handle: this.account.handle, did: this.account.did, active: true };
  }

  /** The documented answer for each method this fake knows. */
  answer(req: FakeRequest): FakeAnswer {
    const json = () => JSON.parse(req.body.toString('utf8') || '{}') as Record<string, unknown>;
    const invalid = (message: string, error = 'InvalidRequest') => ({ status: 400, body: { error, message } });
    switch (req.nsid) {
      case 'com.atproto.server.createSession': {
        const { identifier, password } = json();
        if ((identifier !== this.account.handle && identifier !== this.account.did) || password !== this.account.appPassword) {
          return { status: 401, body: { error: 'AuthenticationRequired', message: 'Invalid identifier or password' } };
        }
        return { status: 200, body: this.session() };
      }
      case 'com.atproto.server.refreshSession': {
        if (!req.token || !this.refresh.delete(req.token)) return invalid('Token has been revoked', 'ExpiredToken');
        return { status: 200, body: this.session() };
      }
    }
    if (!req.token || !this.access.has(req.token)) return invalid('Token has expired', 'ExpiredToken');
    switch (req.nsid) {
      case 'com.atproto.server.getSession':
        return { status: 200, body: { handle: this.account.handle, did: this.account.did, active: true } };
      case 'com.atproto.identity.resolveHandle': {
        const handle = req.query.get('handle') ?? '';
        const did = handle === this.account.handle ? this.account.did : this.others.get(handle);
        return did ? { status: 200, body: { did } } : invalid('Unable to resolve handle');
      }
      case 'com.atproto.repo.uploadBlob':
        return {
          status: 200,
          body: {
            blob: {
              $type: 'blob',
              ref: { $link: cidFor(req.body, 0x55) },
              mimeType: String(req.headers['content-type']),
              size: req.body.byteLength,
            },
          },
        };
      case 'com.atproto.repo.createRecord': {
        const { repo, collection, rkey, record } = json() as {
          repo: string;
          collection: string;
          rkey?: string;
          record: Record<string, unknown>;
        };
        if (repo !== this.account.did) return { status: 401, body: { error: 'AuthenticationRequired', message: 'Bad repo' } };
        const key = rkey ?? randomUUID();
        // The reference PDS answers a taken key with a 500 (the MST refuses the duplicate).
        if (this.records.has(key)) return { status: 500, body: { error: 'InternalServerError', message: 'Internal Server Error' } };
        const uri = `at://${repo}/${collection}/${key}`;
        const cid = cidFor(JSON.stringify(record));
        this.records.set(key, { uri, cid, value: record });
        return {
          status: 200,
          body: { uri, cid, commit: { cid: cidFor(`commit-${key}`), rev: '3n2sbm6qlmc2u' }, validationStatus: 'valid' },
        };
      }
      case 'com.atproto.repo.getRecord': {
        const found = this.records.get(req.query.get('rkey') ?? '');
        return found ? { status: 200, body: found } : invalid(`Could not locate record: ${req.query.get('rkey')}`, 'RecordNotFound');
      }
      case 'app.bsky.feed.getPosts': {
        const uris = req.query.getAll('uris');
        if (uris.length > 25) return invalid('uris must not have more than 25 elements');
        const author = { did: this.account.did, handle: this.account.handle };
        const posts = [...this.records.values()]
          .filter((r) => uris.includes(r.uri))
          .map((r) => ({
            uri: r.uri,
            cid: r.cid,
            author,
            record: r.value,
            indexedAt: new Date().toISOString(),
            likeCount: 0,
            repostCount: 0,
            replyCount: 0,
            quoteCount: 0,
            bookmarkCount: 0,
            ...this.counts.get(r.uri),
          }));
        return { status: 200, body: { posts } };
      }
      case 'app.bsky.actor.getProfile': {
        if (req.query.get('actor') !== this.account.did) return invalid('Profile not found');
        const postsCount = [...this.records.values()].filter((r) => r.uri.includes('/app.bsky.feed.post/')).length;
        return { status: 200, body: { did: this.account.did, handle: this.account.handle, ...this.profile, postsCount } };
      }
      case 'app.bsky.actor.searchActorsTypeahead': {
        const q = (req.query.get('q') ?? '').toLowerCase();
        const all = [[this.account.handle, this.account.did] as const, ...this.others.entries()];
        const actors = all
          .filter(([handle]) => handle.startsWith(q))
          .map(([handle, did]) => ({ did, handle, displayName: handle.split('.')[0] }));
        return { status: 200, body: { actors: actors.slice(0, Number(req.query.get('limit') ?? 10)) } };
      }
      default:
        return { status: 501, body: { error: 'MethodNotImplemented', message: `Method Not Implemented: ${req.nsid}` } };
    }
  }
}
