import type { Db } from '../db/database.ts';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../errors.ts';
import { isScope, MCP_SCOPES, REST_SCOPES, type Scope } from '../auth/scopes.ts';
import type { Clock } from '../lib/clock.ts';
import { andThen, type MaybePromise } from '../lib/maybe-promise.ts';
import { findUserById } from '../users/users.repository.ts';
import { findWorkspace, listMembershipsOfUser } from '../workspaces/workspaces.repository.ts';
import * as repo from './api-keys.repository.ts';
import { formatKey, hashSecret, newKeyId, newSecret, parseAuthorization, secretMatches, type KeyKind } from './key-format.ts';

export type ApiKey = {
  id: string;
  userId: string;
  kind: KeyKind;
  name: string;
  scopes: Scope[];
  channelIds: string[] | null;
  workspaceId: string | null;
  createdAt: string;
  rotatedAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
};

/** Who is calling: a valid, unrevoked key and its owner. Workspace access is decided later. */
export type Principal = {
  /** The key's id; for an OAuth access token, `oauth:` and its grant's id. */
  keyId: string;
  /** An API key (the default), an OAuth access token, or a browser session (`keyId` is `session:` and its id). */
  credential?: 'key' | 'oauth' | 'session';
  userId: string;
  kind: KeyKind;
  scopes: readonly Scope[];
  channelIds: string[] | null;
  workspaceId: string | null;
  /**
   * The version of access data (memberships, roles, plans, keys) when the key was read: what
   * was cached at this version is still true for this request (see AccessService).
   */
  accessVersion?: string | undefined;
  /** The version of channel lists when the key was read (see ChannelsService.list). */
  channelsVersion?: string | undefined;
};

type KeyRow = NonNullable<Awaited<ReturnType<typeof repo.findKey>>>;
type Versions = NonNullable<Awaited<ReturnType<typeof repo.findVersions>>>;

/** A key as a request finds it, with the versions current for that request. */
type FoundKey = { key: StoredKey; accessVersion: string | undefined; channelsVersion: string | undefined };

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind as KeyKind,
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    channelIds: row.channel_ids === null ? null : (JSON.parse(row.channel_ids) as string[]),
    workspaceId: row.workspace_id,
    createdAt: row.created_at,
    rotatedAt: row.rotated_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

/** Lists of scopes and of channels as stored (JSON text), parsed: a key's requests all read the same text. */
const parsedLists = new Map<string, readonly string[]>();

/**
 * A stored list, parsed once per process and frozen: requests share it (and the access checks
 * keep what they derive from it by its identity).
 */
function storedList(text: string): readonly string[] {
  let list = parsedLists.get(text);
  if (!list) {
    list = Object.freeze(JSON.parse(text) as string[]);
    if (parsedLists.size >= 10_000) parsedLists.clear();
    parsedLists.set(text, list);
  }
  return list;
}

/** Keys kept per process (see ApiKeysService.#findKey), at most; the oldest goes first. */
const MAX_KEPT_KEYS = 10_000;

function versionText(version: number | string | bigint | null | undefined): string | undefined {
  return version === null || version === undefined ? undefined : String(version);
}

/** How often a key's last-used time is written, at most. */
const TOUCH_INTERVAL_MS = 60_000;

/** A key's row as read, with what each request checks worked out once: the stored hash as bytes, the last use in milliseconds. */
type StoredKey = { row: KeyRow; hash: Buffer; lastUsedAt: number };

/** Compared with when no key has the id, so that refusal takes as long as a wrong secret. */
const NO_HASH = Buffer.alloc(32);

export class ApiKeysService {
  /** Keys by id, with the access version they were read at. */
  readonly #keys = new Map<string, { accessVersion: string; key: StoredKey }>();

  /** On SQLite, the versions read last, with where the database stood just before. */
  #lastVersions: { mark: Buffer; versions: Versions } | undefined;

  /** On SQLite, what tells whether anything was committed since the versions were read; undefined elsewhere. */
  readonly #commits: repo.CommitWatch | undefined;

  /** `oauthTokens` checks OAuth access tokens (svco_…); without it they are refused. */
  constructor(
    private readonly deps: { db: Db; clock: Clock; oauthTokens?: { verify(token: string, surface: KeyKind): Promise<Principal> } },
  ) {
    this.#commits = repo.commitWatch(deps.db);
  }

  /** Creates a key and returns its secret, which is never available again. */
  async create(input: {
    userId: string;
    kind?: KeyKind;
    name?: string;
    scopes?: string[];
    channelIds?: string[] | null;
    workspaceId?: string | null;
  }): Promise<{ key: ApiKey; secret: string }> {
    const kind = input.kind ?? 'rest';
    const allowed: readonly string[] = kind === 'mcp' ? MCP_SCOPES : REST_SCOPES;
    const scopes = input.scopes ?? [...allowed];
    const unknown = scopes.filter((s) => !isScope(s) || !allowed.includes(s));
    if (unknown.length > 0) {
      throw new BadRequestError(
        `Unknown ${kind === 'mcp' ? 'MCP' : 'REST'} scope(s): ${unknown.join(', ')}. Allowed: ${allowed.join(', ')}.`,
      );
    }
    if (scopes.length === 0) throw new BadRequestError('A key needs at least one scope.');
    if (!(await findUserById(this.deps.db, input.userId))) throw new NotFoundError(`No user ${input.userId}.`);
    if (input.workspaceId && !(await findWorkspace(this.deps.db, input.workspaceId))) {
      throw new NotFoundError(`No workspace ${input.workspaceId}.`);
    }
    // A key acts as its owner within their workspaces: without a membership it could do nothing.
    if ((await listMembershipsOfUser(this.deps.db, input.userId, input.workspaceId ?? null)).length === 0) {
      throw new BadRequestError(
        input.workspaceId
          ? `User ${input.userId} is not a member of workspace ${input.workspaceId}, so a key limited to it could do nothing; add them first (herald admin member add --workspace ${input.workspaceId} --user ${input.userId} --role <role>).`
          : `User ${input.userId} belongs to no workspace, so a key could do nothing; add them to one first (herald admin member add --workspace <id> --user ${input.userId} --role <role>).`,
        { code: 'no_workspace' },
      );
    }
    const id = newKeyId();
    const secret = newSecret();
    const row: KeyRow = {
      id,
      user_id: input.userId,
      kind,
      name: input.name?.trim() || `${kind} key`,
      secret_hash: hashSecret(secret),
      scopes: JSON.stringify([...new Set(scopes)]),
      channel_ids: input.channelIds ? JSON.stringify([...new Set(input.channelIds)]) : null,
      workspace_id: input.workspaceId ?? null,
      created_at: this.deps.clock.now().toISOString(),
      rotated_at: null,
      revoked_at: null,
      last_used_at: null,
    };
    await repo.insertKey(this.deps.db, row);
    return { key: toApiKey(row), secret: formatKey(kind, id, secret) };
  }

  /** Replaces a key's secret; the old one stops working at once. */
  async rotate(id: string): Promise<{ key: ApiKey; secret: string }> {
    const row = await repo.findKey(this.deps.db, id);
    if (!row) throw new NotFoundError(`No key ${id}.`);
    if (row.revoked_at) throw new BadRequestError('A revoked key cannot be rotated; create a new one.');
    const secret = newSecret();
    const rotatedAt = this.deps.clock.now().toISOString();
    await repo.updateKey(this.deps.db, id, { secret_hash: hashSecret(secret), rotated_at: rotatedAt });
    return { key: toApiKey({ ...row, rotated_at: rotatedAt }), secret: formatKey(row.kind as KeyKind, id, secret) };
  }

  async revoke(id: string): Promise<ApiKey> {
    const row = await repo.findKey(this.deps.db, id);
    if (!row) throw new NotFoundError(`No key ${id}.`);
    const revokedAt = row.revoked_at ?? this.deps.clock.now().toISOString();
    await repo.updateKey(this.deps.db, id, { revoked_at: revokedAt });
    return toApiKey({ ...row, revoked_at: revokedAt });
  }

  /** Keys (never their secrets) of one user, or of everyone. */
  async list(userId?: string): Promise<ApiKey[]> {
    return (userId === undefined ? await repo.listKeys(this.deps.db) : await repo.listKeysOfUser(this.deps.db, userId)).map(toApiKey);
  }

  /**
   * Checks an Authorization header for the given surface. Every refusal is a 401 whose
   * message says what is wrong with the credential, never whether another key exists. On
   * SQLite a kept key is checked synchronously (the principal, or a refusal thrown), except
   * once a minute when its last use is written.
   */
  authenticate(header: string | undefined, surface: KeyKind): MaybePromise<Principal> {
    if (header === undefined && surface === 'mcp') {
      throw new UnauthorizedError(
        'Missing Authorization header. The MCP server takes an MCP key ("Authorization: Bearer svc_mcp_…") or an OAuth access token ("Authorization: Bearer svco_…").',
        { code: 'invalid_credential' },
      );
    }
    // MCP clients send every credential as a bearer token: a REST key sent so is still named as one.
    const bearerKey = surface === 'mcp' && header !== undefined ? /^[ \t]*bearer[ \t]+(svc_\S*)[ \t]*$/i.exec(header) : null;
    const parsed = parseAuthorization(bearerKey ? bearerKey[1] : header);
    if (parsed.form === 'invalid') throw new UnauthorizedError(parsed.reason, { code: 'invalid_credential' });
    if (parsed.form === 'oauth') {
      // Bound to `surface`'s resource (RFC 8707): a token for the MCP server is refused on REST, and back.
      if (!this.deps.oauthTokens)
        throw new UnauthorizedError('The OAuth access token is invalid or has expired.', { code: 'invalid_token' });
      return this.deps.oauthTokens.verify(parsed.token, surface);
    }
    if (parsed.kind !== surface) {
      throw new UnauthorizedError(
        surface === 'rest'
          ? 'This is an MCP key (svc_mcp_…); it only works with the MCP server. The REST API takes REST keys (svc_…).'
          : 'This is a REST API key (svc_…); the MCP server takes MCP keys (svc_mcp_…) or OAuth access tokens (Bearer svco_…), not REST keys. Create an MCP key in the developer settings (or with `herald admin key create --mcp`).',
        { code: 'wrong_key_type' },
      );
    }
    return andThen(this.#findKey(parsed.id), (found) => this.#accept(parsed.secret, parsed.kind, found));
  }

  /** The principal of a key found (or not) for a secret, or the refusal; the last use written at most once a minute. */
  #accept(secret: string, kind: KeyKind, found: FoundKey | undefined): MaybePromise<Principal> {
    // The hash is compared even when the row is missing, so both refusals take the same time.
    const matches = secretMatches(secret, found?.key.hash ?? NO_HASH);
    if (!found || !matches || found.key.row.kind !== kind) {
      throw new UnauthorizedError('The API key is not valid: it may have been rotated, or it was never issued.', {
        code: 'invalid_credential',
      });
    }
    const { key, accessVersion, channelsVersion } = found;
    const row = key.row;
    if (row.revoked_at) throw new UnauthorizedError('This API key has been revoked.', { code: 'revoked_credential' });
    const principal: Principal = {
      keyId: row.id,
      userId: row.user_id,
      kind: row.kind as KeyKind,
      scopes: storedList(row.scopes) as Scope[],
      channelIds: row.channel_ids === null ? null : (storedList(row.channel_ids) as string[]),
      workspaceId: row.workspace_id,
      ...(accessVersion !== undefined && { accessVersion }),
      ...(channelsVersion !== undefined && { channelsVersion }),
    };
    const now = this.deps.clock.now().getTime();
    if (now - key.lastUsedAt <= TOUCH_INTERVAL_MS) return principal;
    const lastUsedAt = new Date(now).toISOString();
    return repo.updateKey(this.deps.db, row.id, { last_used_at: lastUsedAt }).then(() => {
      key.lastUsedAt = now;
      key.row = { ...row, last_used_at: lastUsedAt };
      return principal;
    });
  }

  /**
   * The current versions, on SQLite: read again only when something was committed since they
   * were last read (by this process or another: see `repo.commitWatch`), so while
   * nothing changes a request reads no table at all, and a change still applies from the very
   * next request.
   */
  #versions(db: Db, commits: repo.CommitWatch): MaybePromise<Versions | undefined> {
    const seen = this.#lastVersions;
    if (seen && !commits.committedSince(seen.mark)) return seen.versions;
    // Marked before the read: a commit that the read misses moves the mark too.
    const mark = commits.commitMark();
    return andThen(repo.findVersions(db), (versions) => {
      this.#lastVersions = mark && versions ? { mark, versions } : undefined;
      return versions;
    });
  }

  /**
   * The key's row with the current versions. Where reads are in-process (SQLite), a key read
   * at an access version is kept, and while that version has not moved the request only checks
   * the versions (see `#versions`); every change to a key (secret, scopes, channels, workspace,
   * revocation, removal) moves the access version. Elsewhere the key and the versions are one
   * round trip, every time.
   */
  #findKey(id: string): MaybePromise<FoundKey | undefined> {
    const db = this.deps.db;
    const commits = this.#commits;
    const kept = commits ? this.#keys.get(id) : undefined;
    if (!commits || !kept) return andThen(repo.findKeyWithVersions(db, id), (found) => this.#read(id, found, commits !== undefined));
    return andThen(this.#versions(db, commits), (current) => {
      if (current && String(current.access_version) === kept.accessVersion) {
        return { key: kept.key, accessVersion: kept.accessVersion, channelsVersion: versionText(current.channels_version) };
      }
      return andThen(repo.findKeyWithVersions(db, id), (found) => this.#read(id, found, true));
    });
  }

  /** A key row just read: kept (in-process reads) at the access version it was read with. */
  #read(id: string, found: Awaited<ReturnType<typeof repo.findKeyWithVersions>>, keep: boolean): FoundKey | undefined {
    if (!found) {
      this.#keys.delete(id);
      return undefined;
    }
    const { access_version, channels_version, ...row } = found;
    const accessVersion = versionText(access_version);
    const key: StoredKey = {
      row,
      hash: Buffer.from(row.secret_hash, 'hex'),
      lastUsedAt: row.last_used_at ? Date.parse(row.last_used_at) : -Infinity,
    };
    if (keep && accessVersion !== undefined) {
      this.#keys.delete(id);
      if (this.#keys.size >= MAX_KEPT_KEYS) this.#keys.delete(this.#keys.keys().next().value!);
      this.#keys.set(id, { accessVersion, key });
    }
    return { key, accessVersion, channelsVersion: versionText(channels_version) };
  }
}
