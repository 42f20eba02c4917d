import * as z from 'zod';
import { isHttpsOrLoopback } from '../config-urls.ts';
import { field } from '../oauth-api.ts';
import {
  callPlatform,
  JSON_API_HEADERS,
  noAnswerFailure,
  type Platform,
  type PlatformAnswer,
  type PlatformRequest,
} from '../platform-call.ts';
import { ProviderError, readConfig, type ProviderContext } from '../provider.ts';

/** A site as its address without a trailing slash: `example.com/blog/` is `https://example.com/blog`. */
export const siteSchema = z
  .string()
  .trim()
  .min(3)
  .max(500)
  .transform((value, ctx) => {
    try {
      const url = new URL(/^https?:\/\//i.test(value) ? value : `https://${value}`);
      if (url.username || url.password) throw new Error('credentials in the URL');
      if (!isHttpsOrLoopback(url.toString())) {
        ctx.addIssue({ code: 'custom', message: 'an https:// address (the application password is sent with every request)' });
        return z.NEVER;
      }
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'a site address such as `example.com` or `https://example.com/blog`' });
      return z.NEVER;
    }
  })
  .describe('The WordPress site, e.g. `example.com` or `https://example.com/blog` (https only).');

export const wordpressConfigSchema = z.object({
  site: siteSchema.meta({ title: 'Site address' }),
  username: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .meta({ title: 'User name' })
    .describe('The WordPress user name (or e-mail address) the application password belongs to.'),
  applicationPassword: z
    .string()
    .transform((value) => value.replace(/\s+/g, ''))
    .pipe(z.string().regex(/^[A-Za-z0-9]{24}$/, 'an application password: 24 letters and digits, shown in groups of four'))
    .meta({ title: 'Application password', writeOnly: true })
    .describe('An application password (Users → Profile → Application Passwords), e.g. `abcd EFGH 1234 ijkl MNOP 6789`.'),
  apiRoot: z
    .url({ protocol: /^https?$/ })
    .refine(isHttpsOrLoopback, 'an https:// address')
    .optional()
    .meta({ readOnly: true })
    .describe("The site's REST API root, as the site announces it; found when connecting."),
});

export type WordPressConfig = z.infer<typeof wordpressConfigSchema>;

export function wordpressConfig(config: Record<string, unknown>): WordPressConfig {
  return readConfig(wordpressConfigSchema, config, 'WordPress');
}

/** Error codes WordPress answers when the user, not the request, lacks a right: reconnecting (or another user) is the fix. */
const CREDENTIAL_CODES = new Set(['rest_cannot_create', 'rest_forbidden', 'rest_not_logged_in', 'application_passwords_disabled']);

/** WordPress REST errors: `{code, message, data: {status}}`. */
function readWordPressError(answer: PlatformAnswer) {
  const code = field(answer.json, 'code');
  const message = field(answer.json, 'message');
  const reason =
    typeof message === 'string' ? `${message.replace(/<[^>]*>/g, '')}${typeof code === 'string' ? ` (${code})` : ''}` : undefined;
  if (answer.status === 401 || (answer.status === 403 && typeof code === 'string' && CREDENTIAL_CODES.has(code)))
    return {
      kind: 'auth' as const,
      reason:
        code === 'rest_not_logged_in'
          ? `${reason ?? 'not signed in'}; the application password was not accepted (the site must use https, and its server must pass the Authorization header to WordPress)`
          : reason,
    };
  return { reason };
}

export const WORDPRESS: Platform = {
  name: 'The WordPress site',
  headers: JSON_API_HEADERS,
  timeoutMs: 60_000,
  limit: 4 * 1024 * 1024,
  outcome: 'the post may or may not have been created',
  readError: readWordPressError,
};

/** The REST root from a `Link: <…>; rel="https://api.w.org/"` header, or null. */
export function restRootFromLink(link: string | null): string | null {
  for (const part of (link ?? '').split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]+)>\s*;(.*)$/.exec(part);
    if (match && /rel="?https:\/\/api\.w\.org\/"?/.test(match[2]!)) return match[1]!;
  }
  return null;
}

/**
 * Finds the site's REST API root: WordPress announces it on every page in a `Link` header
 * (`rel="https://api.w.org/"`); `/wp-json/` under the site when the header is missing.
 */
export async function discoverApiRoot(ctx: Pick<ProviderContext, 'outbound' | 'signal'>, site: string): Promise<string> {
  let announced: string | null = null;
  try {
    const answer = await ctx.outbound.request(`${site}/`, {
      method: 'HEAD',
      headers: { 'user-agent': 'Herald' },
      limit: 1024,
      timeoutMs: WORDPRESS.timeoutMs,
      maxRedirects: 3,
      ...(ctx.signal && { signal: ctx.signal }),
    });
    announced = restRootFromLink(answer.headers.get('link'));
  } catch (error) {
    throw noAnswerFailure(error, { name: 'The WordPress site' }, false);
  }
  const root = announced ?? `${site}/wp-json/`;
  if (!isHttpsOrLoopback(root))
    throw new ProviderError(
      'rejected',
      `The site announces its REST API at ${root}, which is not https; Herald sends the password only over https.`,
    );
  return root;
}

/** The address of a REST route (`/wp/v2/posts`) under the root, with or without pretty permalinks (`?rest_route=`). */
export function routeUrl(apiRoot: string, route: string, query: Record<string, string> = {}): string {
  const url = new URL(apiRoot);
  const params = new URLSearchParams(query);
  if (url.searchParams.has('rest_route')) {
    url.searchParams.set('rest_route', route);
    for (const [k, v] of params) url.searchParams.set(k, v);
    return url.toString();
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${route}`;
  for (const [k, v] of params) url.searchParams.set(k, v);
  return url.toString();
}

/** Calls a REST route with the application password (HTTP Basic). */
export async function callWordPress(
  ctx: Pick<ProviderContext, 'outbound' | 'signal'>,
  config: WordPressConfig & { apiRoot: string },
  route: string,
  request: PlatformRequest & { query?: Record<string, string> } = {},
): Promise<PlatformAnswer> {
  const { query, ...rest } = request;
  const basic = Buffer.from(`${config.username}:${config.applicationPassword}`).toString('base64');
  return callPlatform(ctx, WORDPRESS, routeUrl(config.apiRoot, route, query), {
    ...rest,
    headers: { authorization: `Basic ${basic}`, ...rest.headers },
  });
}

/** The configuration with its REST root (found now for channels stored without one). */
export async function withApiRoot(
  ctx: Pick<ProviderContext, 'outbound' | 'signal' | 'config'>,
): Promise<WordPressConfig & { apiRoot: string }> {
  const config = wordpressConfig(ctx.config);
  return { ...config, apiRoot: config.apiRoot ?? (await discoverApiRoot(ctx, config.site)) };
}
