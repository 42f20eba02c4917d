import type { Adapter, AdapterPayload } from 'oidc-provider';
import { sha256 } from '../accounts/tokens.ts';
import type { Db } from '../db/database.ts';
import * as repo from './oauth.repository.ts';
import { parseAccountId } from './oauth.service.ts';
import { UNUSED_CLIENT_TTL_SECONDS } from './client-rules.ts';

/** Models found by their id, which is a secret (the token itself): the id is not kept in the stored payload. */
const SECRET_IDS = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'ClientCredentials',
  'RegistrationAccessToken',
  'DeviceCode',
]);

/**
 * A device code found by its user code (the person typed it on the verification page) is handed
 * to the library under this handle, its stored hash, since the code itself is not stored. The
 * handle finds the code only while the person has not answered, so it can save their answer;
 * never once approved: polling with it can never return a token (only the device code can).
 */
const DEVICE_HANDLE = 'stored:';

/** How often (at most) one process removes expired records. */
const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * The authorization server's storage in Herald's database, one instance per model: every API
 * process reads and writes the same rows. Ids are stored hashed: an access or refresh token's
 * id is the token, and a leaked table must not hand them out.
 */
export class OAuthStore implements Adapter {
  /** When each database was last swept by this process. */
  static readonly #lastSweep = new WeakMap<Db, number>();

  constructor(
    private readonly model: string,
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    /** Clients only: reads a client id that is an https URL as its metadata document. */
    private readonly fetchDocument?: (clientId: string) => Promise<AdapterPayload | undefined>,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void> {
    const nowSeconds = Math.floor(this.now() / 1000);
    const account = parseAccountId(payload.accountId);
    const clientId = payload.clientId ?? payload.client_id;
    // The library stores a client only when it is registered dynamically (metadata documents are
    // cached with a lifetime; the developer settings write their own): it lasts until someone allows it.
    const lifetime = expiresIn ?? (this.model === 'Client' ? UNUSED_CLIENT_TTL_SECONDS : undefined);
    await repo.upsertRecord(this.db, {
      model: this.model,
      id_hash: this.#idHash(id),
      payload: JSON.stringify(SECRET_IDS.has(this.model) ? { ...payload, jti: undefined } : payload),
      grant_id: payload.grantId ?? (this.model === 'Grant' ? id : null),
      uid: payload.uid ?? null,
      user_code_hash: payload.userCode ? sha256(payload.userCode) : null,
      user_id: account?.userId ?? (typeof payload.herald_owner === 'string' ? payload.herald_owner : null),
      workspace_id: account?.workspaceId ?? null,
      client_id: typeof clientId === 'string' ? clientId : null,
      expires_at: lifetime ? nowSeconds + lifetime : null,
      consumed_at: null,
    });
    // A grant means someone allowed the app: a registered one is kept from then on (a metadata
    // document, whose id is its URL, stays a cache).
    if (this.model === 'Grant' && typeof clientId === 'string' && !clientId.includes('://')) await repo.keepClient(this.db, clientId);
    if (this.now() - (OAuthStore.#lastSweep.get(this.db) ?? 0) > SWEEP_INTERVAL_MS) {
      OAuthStore.#lastSweep.set(this.db, this.now());
      await repo.deleteExpired(this.db, nowSeconds);
    }
  }

  #idHash(id: string): string {
    return this.model === 'DeviceCode' && id.startsWith(DEVICE_HANDLE) ? id.slice(DEVICE_HANDLE.length) : sha256(id);
  }

  #read(row: Awaited<ReturnType<typeof repo.findRecord>>, id?: string): AdapterPayload | undefined {
    if (!row) return undefined;
    if (row.expires_at !== null && Number(row.expires_at) * 1000 <= this.now()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    // Codes and tokens stored while they were bound to the login session (see expiresWithSession
    // in provider.ts) are read as unbound, like every one issued since.
    delete payload.expiresWithSession;
    if (id !== undefined && SECRET_IDS.has(this.model)) payload.jti = id;
    return row.consumed_at === null ? payload : { ...payload, consumed: Number(row.consumed_at) };
  }

  async find(id: string) {
    const found = this.#read(await repo.findRecord(this.db, this.model, this.#idHash(id)), id);
    if (
      found &&
      this.model === 'DeviceCode' &&
      id.startsWith(DEVICE_HANDLE) &&
      (found.accountId !== undefined || found.error !== undefined)
    )
      return undefined;
    if (found || !this.fetchDocument || !id.startsWith('https://')) return found;
    const document = await this.fetchDocument(id);
    // Kept an hour (every process reads it from here), then fetched again.
    if (document) await this.upsert(id, document, 60 * 60);
    return document;
  }

  async findByUserCode(userCode: string) {
    const row = await repo.findRecordBy(this.db, this.model, 'user_code_hash', sha256(userCode));
    return this.#read(row, row ? `${DEVICE_HANDLE}${row.id_hash}` : undefined);
  }

  async findByUid(uid: string) {
    return this.#read(await repo.findRecordBy(this.db, this.model, 'uid', uid));
  }

  async consume(id: string) {
    await repo.consumeRecord(this.db, this.model, this.#idHash(id), Math.floor(this.now() / 1000));
  }

  async destroy(id: string) {
    await repo.deleteRecord(this.db, this.model, this.#idHash(id));
  }

  async revokeByGrantId(grantId: string) {
    await repo.deleteByGrant(this.db, grantId, this.model);
  }
}
