import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './errors.ts';
import { stdio } from './stdio.ts';

/** One stored login: an API key, or an OAuth access token (`key`) with its refresh token; for the instance at `url` only. */
export type Credential =
  | { url: string; kind: 'apiKey'; key: string; workspace?: string }
  | { url: string; kind: 'oauth'; key: string; refreshToken?: string; expiresAt: string; workspace?: string };

/**
 * A profile as stored: its login (the instance a command uses without HERALD_URL: the one last
 * logged in to) and, beside it, its logins to other instances by URL. Each is sent to its own
 * instance only. A file written before logins were kept per instance is this without `others`.
 */
type StoredProfile = Credential & { others?: Record<string, Credential> };
type CredentialsFile = { profiles: Record<string, StoredProfile> };

/** What a command talks to: the instance, the secret and the workspace it acts on. */
export type Session = { url: string; key: string; workspace?: string; profile: string; source: 'environment' | 'file' };

export const DEFAULT_PROFILE = 'default';

/** `$XDG_CONFIG_HOME/herald/credentials.json`, `~/.config/herald/credentials.json` without it. */
export function credentialsPath(env: NodeJS.ProcessEnv = stdio().env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.join(base, 'herald', 'credentials.json');
}

function readFile(file: string): CredentialsFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<CredentialsFile>;
    return { profiles: parsed.profiles && typeof parsed.profiles === 'object' ? parsed.profiles : {} };
  } catch {
    throw new UsageError(`${file} is not valid JSON: fix it or delete it and log in again.`);
  }
}

/** Writes the file readable by its owner only (folder 0700, file 0600), replacing it whole. */
function writeFile(file: string, content: CredentialsFile): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  // Unique per write: runs of the command inside one process (tests) may write at once.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}

/** The URL a login was stored for, as compared with the instance a command names; null when it is not a URL. */
function instanceOf(credential: Credential): string | null {
  try {
    return normalizeUrl(credential.url);
  } catch {
    return null;
  }
}

/** A profile's logins by instance (each with its URL as compared), its own login first. */
function loginsOf(entry: StoredProfile): Map<string, Credential> {
  const { others, ...own } = entry;
  const logins = new Map<string, Credential>();
  for (const login of [own as Credential, ...Object.values(others ?? {})]) {
    const url = instanceOf(login);
    if (url !== null && !logins.has(url)) logins.set(url, { ...login, url });
  }
  return logins;
}

/** A profile of `logins`, `own` its own login. */
function profileFrom(own: string, logins: Map<string, Credential>): StoredProfile {
  const others = [...logins].filter(([url]) => url !== own);
  const login = logins.get(own)!;
  return others.length ? { ...login, others: Object.fromEntries(others) } : login;
}

/** A profile's login to `url`; without `url`, its own (the instance last logged in to). */
export function storedCredential(profile: string, env: NodeJS.ProcessEnv = stdio().env, url?: string): Credential | undefined {
  const entry = readFile(credentialsPath(env)).profiles[profile];
  if (!entry) return undefined;
  const logins = loginsOf(entry);
  return url === undefined ? logins.values().next().value : logins.get(normalizeUrl(url));
}

/**
 * Stores a login for its instance, beside the profile's logins to others. By default it becomes
 * the profile's own (a login); a refreshed token keeps the profile's own as it was (`own: false`).
 */
export function storeCredential(
  profile: string,
  credential: Credential,
  env: NodeJS.ProcessEnv = stdio().env,
  options: { own?: boolean } = {},
): string {
  const file = credentialsPath(env);
  const content = readFile(file);
  const entry = content.profiles[profile];
  const logins = entry ? loginsOf(entry) : new Map<string, Credential>();
  const previousOwn = logins.keys().next().value;
  const url = normalizeUrl(credential.url);
  logins.set(url, credential);
  content.profiles[profile] = profileFrom(options.own === false && previousOwn !== undefined ? previousOwn : url, logins);
  writeFile(file, content);
  return file;
}

/**
 * Forgets a profile's login to `url` (by default its own; another of its logins then becomes its
 * own); undefined when there was none.
 */
export function forgetCredential(profile: string, env: NodeJS.ProcessEnv = stdio().env, url?: string): Credential | undefined {
  const file = credentialsPath(env);
  const content = readFile(file);
  const entry = content.profiles[profile];
  if (!entry) return undefined;
  const logins = loginsOf(entry);
  const own = logins.keys().next().value;
  const key = url === undefined ? own : normalizeUrl(url);
  const credential = key === undefined ? undefined : logins.get(key);
  if (!credential || key === undefined) return undefined;
  logins.delete(key);
  const next = key === own ? logins.keys().next().value : own;
  if (next !== undefined) content.profiles[profile] = profileFrom(next, logins);
  else delete content.profiles[profile];
  writeFile(file, content);
  return credential;
}

/**
 * The session for a command: the profile's login to the instance HERALD_URL names (its own
 * without HERALD_URL). A stored credential goes to the instance it was stored for only: another
 * instance needs its own login, or HERALD_API_KEY. HERALD_API_KEY overrides the stored key,
 * `--workspace` the login's workspace.
 */
export function resolveSession(options: { profile?: string; workspace?: string }, env: NodeJS.ProcessEnv = stdio().env): Session {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const entry = readFile(credentialsPath(env)).profiles[profile];
  const logins = entry ? loginsOf(entry) : new Map<string, Credential>();
  const url = env.HERALD_URL ? normalizeUrl(env.HERALD_URL) : logins.keys().next().value;
  const stored = url === undefined ? undefined : logins.get(url);
  const key = env.HERALD_API_KEY || stored?.key;
  const which = options.profile ? ` for profile "${profile}"` : '';
  if (url && !key && logins.size > 0) {
    throw new UsageError(
      `Not logged in to ${url}${which}: the stored login${logins.size > 1 ? 's are' : ' is'} for ${[...logins.keys()].join(', ')}, and a stored credential is sent only to its own instance. Run \`herald login --url ${url}\` (or set HERALD_API_KEY for it).`,
    );
  }
  if (!url || !key) {
    throw new UsageError(
      `Not logged in${which}: run \`herald login --url <instance>\` (or \`herald login --key --url <instance>\`, or set HERALD_URL and HERALD_API_KEY).`,
    );
  }
  const workspace = options.workspace ?? stored?.workspace;
  return { url, key, profile, source: env.HERALD_API_KEY ? 'environment' : 'file', ...(workspace && { workspace }) };
}

/** The instance's origin: an http(s) URL, without a trailing slash or the API path. */
export function normalizeUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`"${value}" is not a URL: give the instance's address, e.g. https://herald.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`"${value}" is not an http or https URL.`);
  return `${url.origin}${url.pathname.replace(/\/public\/v1\/?$/, '').replace(/\/+$/, '')}`;
}
