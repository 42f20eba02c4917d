import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { sha256 } from '../accounts/tokens.ts';
import type { Db } from '../db/database.ts';
import * as repo from './oauth.repository.ts';

/** A signing key (a private JWK) or a cookie key, with when it was replaced by a newer one. */
type Kept<T> = T & { retiredAt?: number };
type SigningKey = Kept<{ jwk: Record<string, unknown> }>;
type CookieKey = Kept<{ key: string }>;

/** The stored form: newest first. (The first deployments kept one `jwk` and `cookieKeys` strings.) */
type StoredKeys = {
  signing?: SigningKey[];
  cookies?: CookieKey[];
  rotatedAt?: number;
  jwk?: Record<string, unknown>;
  cookieKeys?: string[];
};

/** What the authorization server is configured with: newest first (the first signs, every one verifies). */
export type OAuthKeys = { jwks: Array<Record<string, unknown>>; cookieKeys: string[]; rotatedAt: number };

/**
 * How long a replaced key keeps verifying, in seconds: as long as the longest-lived thing it
 * signed. Signing keys sign ID tokens (an hour); cookie keys sign the sign-in session cookie
 * of the authorization server (two weeks) and its interaction cookies (an hour).
 */
export const KEY_RETENTION = { signing: 60 * 60, cookie: 14 * 24 * 60 * 60 } as const;

const ID_HASH = sha256('keys');

function newSigningKey(): SigningKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { jwk: { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' } };
}

function newCookieKey(): CookieKey {
  return { key: randomBytes(32).toString('base64url') };
}

function normalise(stored: StoredKeys): { signing: SigningKey[]; cookies: CookieKey[]; rotatedAt: number } {
  return {
    signing: stored.signing ?? (stored.jwk ? [{ jwk: stored.jwk }] : []),
    cookies: stored.cookies ?? (stored.cookieKeys ?? []).map((key) => ({ key })),
    rotatedAt: stored.rotatedAt ?? 0,
  };
}

function toConfig(stored: StoredKeys): OAuthKeys {
  const keys = normalise(stored);
  return { jwks: keys.signing.map((k) => k.jwk), cookieKeys: keys.cookies.map((k) => k.key), rotatedAt: keys.rotatedAt };
}

async function read(db: Db): Promise<StoredKeys | undefined> {
  const row = await repo.findRecord(db, 'HeraldKeys', ID_HASH);
  return row ? (JSON.parse(row.payload) as StoredKeys) : undefined;
}

function keysRow(payload: StoredKeys) {
  return {
    model: 'HeraldKeys',
    id_hash: ID_HASH,
    payload: JSON.stringify(payload),
    grant_id: null,
    uid: null,
    user_code_hash: null,
    user_id: null,
    workspace_id: null,
    client_id: null,
    expires_at: null,
    consumed_at: null,
  };
}

/** The signing and cookie keys, made once per deployment and shared by every process. */
export async function deploymentKeys(db: Db): Promise<OAuthKeys> {
  const existing = await read(db);
  if (existing) return toConfig(existing);
  await repo.insertRecordIfAbsent(db, keysRow({ signing: [newSigningKey()], cookies: [newCookieKey()], rotatedAt: 0 }));
  return toConfig((await read(db))!);
}

/** When the keys were last rotated (0: never); every process compares it with the keys it runs with. */
export async function keysRotatedAt(db: Db): Promise<number> {
  const stored = await read(db);
  return stored ? normalise(stored).rotatedAt : 0;
}

export type RotationResult = {
  signingKeyId: string;
  signingKeys: number;
  cookieKeys: number;
  dropped: { signing: number; cookie: number };
};

/**
 * Adds a new signing key and a new cookie key, used from now on; the previous ones keep
 * verifying until what they signed has expired (KEY_RETENTION after they were replaced), and are
 * dropped by a later rotation after that.
 */
export async function rotateKeys(db: Db, now: number): Promise<RotationResult> {
  const current = normalise((await read(db)) ?? {});
  const at = Math.floor(now / 1000);
  const keep = <T extends Kept<object>>(keys: T[], retention: number) =>
    keys.filter((k) => k.retiredAt === undefined || k.retiredAt + retention > at).map((k) => ({ ...k, retiredAt: k.retiredAt ?? at }));
  const signing = [newSigningKey(), ...keep(current.signing, KEY_RETENTION.signing)];
  const cookies = [newCookieKey(), ...keep(current.cookies, KEY_RETENTION.cookie)];
  // Rotations within one second still differ: rotatedAt only ever grows.
  const rotatedAt = Math.max(now, current.rotatedAt + 1);
  await repo.upsertRecord(db, keysRow({ signing, cookies, rotatedAt }));
  return {
    signingKeyId: String(signing[0]!.jwk.kid),
    signingKeys: signing.length,
    cookieKeys: cookies.length,
    dropped: { signing: current.signing.length + 1 - signing.length, cookie: current.cookies.length + 1 - cookies.length },
  };
}
