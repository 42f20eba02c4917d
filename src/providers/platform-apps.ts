import { isIP } from 'node:net';
import { isLoopbackHost } from './config-urls.ts';
import { ProviderError } from './provider.ts';

/** A platform whose API Herald reaches through one OAuth app the operator registers. */
export type AppPlatform = 'linkedin' | 'x' | 'threads' | 'tiktok' | 'pinterest' | 'reddit' | 'facebook' | 'instagram' | 'google';

export type PlatformApp = {
  clientId: string;
  clientSecret: string;
  apiBase: string;
  /** Where the platform's sign-in (authorization, and LinkedIn's token endpoint) lives: under an overridden API base, that same origin. */
  signInBase: string;
  version: string | undefined;
  /** LinkedIn: members' sign-in also asks for r_member_postAnalytics (the app has the Member Post Analytics API). */
  memberAnalytics: boolean;
  userAgent: string | null;
};

/**
 * The operator's apps and Herald's public address (BASE_URL), from the configuration. Providers
 * read them from their context (`ProviderContext.platformApps`), so two applications in one
 * process (tests, a CLI beside a server) never see each other's.
 */
export type PlatformApps = {
  baseUrl: string;
  apps: Record<
    AppPlatform,
    {
      clientId: string | null;
      clientSecret: string | null;
      apiBase: string | null;
      version?: string | undefined;
      memberAnalytics?: boolean;
      /** Reddit: the User-Agent the operator chose (Reddit's format `<platform>:<app id>:<version> (by /u/<name>)`). */
      userAgent?: string | null;
      /** Google: origins standing in for its sign-in (`oauth`), YouTube's API and the Business Profile APIs (null: Google's own). */
      apiBases?: { oauth: string | null; youtube: string | null; business: string | null };
    }
  >;
};

const DEFAULT_API_BASES: Record<AppPlatform, string> = {
  linkedin: 'https://api.linkedin.com',
  x: 'https://api.x.com',
  threads: 'https://graph.threads.net',
  tiktok: 'https://open.tiktokapis.com',
  pinterest: 'https://api.pinterest.com',
  reddit: 'https://oauth.reddit.com',
  facebook: 'https://graph.facebook.com',
  instagram: 'https://graph.instagram.com',
  google: 'https://www.googleapis.com',
};

const DEFAULT_SIGN_IN_BASES: Record<AppPlatform, string> = {
  linkedin: 'https://www.linkedin.com',
  x: 'https://x.com',
  threads: 'https://threads.net',
  tiktok: 'https://www.tiktok.com',
  pinterest: 'https://www.pinterest.com',
  reddit: 'https://www.reddit.com',
  facebook: 'https://www.facebook.com',
  instagram: 'https://www.instagram.com',
  google: 'https://accounts.google.com',
};

const VARIABLES: Record<AppPlatform, [string, string]> = {
  linkedin: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
  x: ['X_CLIENT_ID', 'X_CLIENT_SECRET'],
  threads: ['THREADS_APP_ID', 'THREADS_APP_SECRET'],
  tiktok: ['TIKTOK_CLIENT_KEY', 'TIKTOK_CLIENT_SECRET'],
  pinterest: ['PINTEREST_APP_ID', 'PINTEREST_APP_SECRET'],
  reddit: ['REDDIT_CLIENT_ID', 'REDDIT_CLIENT_SECRET'],
  facebook: ['FACEBOOK_APP_ID', 'FACEBOOK_APP_SECRET'],
  instagram: ['INSTAGRAM_APP_ID', 'INSTAGRAM_APP_SECRET'],
  google: ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'],
};

const NAMES: Record<AppPlatform, string> = {
  linkedin: 'LinkedIn',
  x: 'X',
  threads: 'Threads',
  tiktok: 'TikTok',
  pinterest: 'Pinterest',
  reddit: 'Reddit',
  facebook: 'Facebook',
  instagram: 'Instagram',
  google: 'Google',
};

/** Why the platform cannot be connected on this server, or null when its app is configured. */
export function appUnavailable(settings: PlatformApps, platform: AppPlatform, what: string = NAMES[platform]): string | null {
  const app = settings.apps[platform];
  if (app.clientId && app.clientSecret) return null;
  const [id, secret] = VARIABLES[platform];
  return `${what} is not available on this server: the operator has not registered its app. Set ${id} and ${secret} (see the README's ${platform === 'facebook' ? 'Facebook pages' : NAMES[platform]} section).`;
}

/** The operator's app for the platform; a publish or refresh without it is a credentials problem. */
export function platformApp(settings: PlatformApps, platform: AppPlatform): PlatformApp {
  const app = settings.apps[platform];
  if (!app.clientId || !app.clientSecret) throw new ProviderError('auth', appUnavailable(settings, platform)!);
  return {
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    apiBase: app.apiBase ?? DEFAULT_API_BASES[platform],
    signInBase: app.apiBase ?? DEFAULT_SIGN_IN_BASES[platform],
    version: app.version,
    memberAnalytics: app.memberAnalytics === true,
    userAgent: app.userAgent ?? null,
  };
}

/** Why platforms that fetch media from Herald cannot reach BASE_URL, or null when it looks public. */
export function baseUrlNotPublic(settings: PlatformApps): string | null {
  const { hostname } = new URL(settings.baseUrl);
  const host = hostname.replace(/^\[|\]$/g, '');
  const privateIp =
    (isIP(host) === 4 && /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|0\.)/.test(host)) ||
    (isIP(host) === 6 && /^(fc|fd|fe80)/i.test(host));
  if (isLoopbackHost(hostname) || host === '::1' || privateIp || !host.includes('.')) {
    return `BASE_URL (${settings.baseUrl}) is not a public address; the platform fetches media from Herald's media URLs, so BASE_URL must be reachable from the internet.`;
  }
  return null;
}
