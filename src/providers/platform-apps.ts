import { isIP } from 'node:net';
import { isLoopbackHost } from './config-urls.ts';
import { ProviderError } from './provider.ts';

/** A platform whose API Herald reaches through one OAuth app the operator registers. */
export type AppPlatform = 'linkedin' | 'x' | 'threads';

export type PlatformApp = { clientId: string; clientSecret: string; apiBase: string; custom: boolean; version: string | undefined };

type Setup = {
  baseUrl: string;
  apps: Record<AppPlatform, { clientId: string | null; clientSecret: string | null; apiBase: string | null; version?: string | undefined }>;
};

const DEFAULT_API_BASES: Record<AppPlatform, string> = {
  linkedin: 'https://api.linkedin.com',
  x: 'https://api.x.com',
  threads: 'https://graph.threads.net',
};

const VARIABLES: Record<AppPlatform, [string, string]> = {
  linkedin: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
  x: ['X_CLIENT_ID', 'X_CLIENT_SECRET'],
  threads: ['THREADS_APP_ID', 'THREADS_APP_SECRET'],
};

const NAMES: Record<AppPlatform, string> = { linkedin: 'LinkedIn', x: 'X', threads: 'Threads' };

let setup: Setup = {
  baseUrl: 'http://localhost:3000',
  apps: { linkedin: { clientId: null, clientSecret: null, apiBase: null }, x: { clientId: null, clientSecret: null, apiBase: null }, threads: { clientId: null, clientSecret: null, apiBase: null } },
};

/** Takes the operator's apps and public address from the configuration (once per process, at start). */
export function configurePlatforms(next: Setup): void {
  setup = next;
}

/** Why the platform cannot be connected on this server, or null when its app is configured. */
export function appUnavailable(platform: AppPlatform): string | null {
  const app = setup.apps[platform];
  if (app.clientId && app.clientSecret) return null;
  const [id, secret] = VARIABLES[platform];
  return `${NAMES[platform]} is not available on this server: the operator has not registered its app. Set ${id} and ${secret} (see the README's ${NAMES[platform]} section).`;
}

/** The operator's app for the platform; a publish or refresh without it is a credentials problem. */
export function platformApp(platform: AppPlatform): PlatformApp {
  const app = setup.apps[platform];
  if (!app.clientId || !app.clientSecret) throw new ProviderError('auth', appUnavailable(platform)!);
  return { clientId: app.clientId, clientSecret: app.clientSecret, apiBase: app.apiBase ?? DEFAULT_API_BASES[platform], custom: app.apiBase !== null, version: app.version };
}

/** Herald's public address (BASE_URL). */
export function publicBaseUrl(): string {
  return setup.baseUrl;
}

/** Why platforms that fetch media from Herald cannot reach BASE_URL, or null when it looks public. */
export function baseUrlNotPublic(): string | null {
  const { hostname } = new URL(setup.baseUrl);
  const host = hostname.replace(/^\[|\]$/g, '');
  const privateIp =
    (isIP(host) === 4 && /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|0\.)/.test(host)) ||
    (isIP(host) === 6 && /^(fc|fd|fe80)/i.test(host));
  if (isLoopbackHost(hostname) || host === '::1' || privateIp || !host.includes('.')) {
    return `BASE_URL (${setup.baseUrl}) is not a public address; the platform fetches media from Herald's media URLs, so BASE_URL must be reachable from the internet.`;
  }
  return null;
}
