import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './errors.ts';
import { stdio } from './stdio.ts';

/** One stored login: an API key, or an OAuth access token (`key`) with its refresh token. */
export type Credential =
  | { url: string; kind: 'apiKey'; key: string; workspace?: string }
  | { url: string; kind: 'oauth'; key: string; refreshToken?: string; expiresAt: string; workspace?: string };
type CredentialsFile = { profiles: Record<string, Credential> };

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

export function storedCredential(profile: string, env: NodeJS.ProcessEnv = stdio().env): Credential | undefined {
  return readFile(credentialsPath(env)).profiles[profile];
}

export function storeCredential(profile: string, credential: Credential, env: NodeJS.ProcessEnv = stdio().env): string {
  const file = credentialsPath(env);
  const content = readFile(file);
  content.profiles[profile] = credential;
  writeFile(file, content);
  return file;
}

/** Forgets a profile's credential; false when there was none. */
export function forgetCredential(profile: string, env: NodeJS.ProcessEnv = stdio().env): Credential | undefined {
  const file = credentialsPath(env);
  const content = readFile(file);
  const credential = content.profiles[profile];
  if (!credential) return undefined;
  delete content.profiles[profile];
  writeFile(file, content);
  return credential;
}

/**
 * The session for a command: HERALD_URL and HERALD_API_KEY override the stored profile (both
 * or either), `--workspace` overrides the profile's workspace.
 */
export function resolveSession(options: { profile?: string; workspace?: string }, env: NodeJS.ProcessEnv = stdio().env): Session {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const stored = readFile(credentialsPath(env)).profiles[profile];
  const url = env.HERALD_URL || stored?.url;
  const key = env.HERALD_API_KEY || stored?.key;
  if (!url || !key) {
    const which = options.profile ? ` for profile "${profile}"` : '';
    throw new UsageError(`Not logged in${which}: run \`herald login --url <instance>\` (or \`herald login --key --url <instance>\`, or set HERALD_URL and HERALD_API_KEY).`);
  }
  const workspace = options.workspace ?? stored?.workspace;
  return { url: normalizeUrl(url), key, profile, source: env.HERALD_API_KEY ? 'environment' : 'file', ...(workspace && { workspace }) };
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
