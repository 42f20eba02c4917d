import * as z from 'zod';
import { isHttpsOrLoopback } from '../config-urls.ts';
import { field } from '../oauth-api.ts';
import { callPlatform, type Platform, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { readConfig, type ProviderContext } from '../provider.ts';

export const DEV_BASE = 'https://dev.to';

export const devtoConfigSchema = z.object({
  apiKey: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{8,200}$/, 'an API key (Settings → Extensions → DEV Community API Keys)')
    .meta({ title: 'API key', writeOnly: true })
    .describe('An API key, made under Settings → Extensions → "DEV Community API Keys" (on another Forem, the same place).'),
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .refine(isHttpsOrLoopback, 'an https:// address')
    .transform((value) => new URL(value).origin)
    .optional()
    .meta({ title: 'Forem community' })
    .describe('The Forem community, e.g. `https://community.example.org`; `https://dev.to` by default.'),
});

export type DevtoConfig = z.infer<typeof devtoConfigSchema>;

export function devtoConfig(config: Record<string, unknown>): DevtoConfig & { baseUrl: string } {
  const parsed = readConfig(devtoConfigSchema, config, 'DEV');
  return { ...parsed, baseUrl: parsed.baseUrl ?? DEV_BASE };
}

/** Forem answers `{error, status}`; a title used by the account within five minutes is refused (422) as a likely double post. */
function readForemError(answer: PlatformAnswer) {
  const error = field(answer.json, 'error');
  const reason = typeof error === 'string' ? error : undefined;
  if (answer.status === 422 && reason && /(five|5) minutes/i.test(reason))
    return {
      message: `The community refused the article: this account published an article with the same title less than five minutes ago (${reason}). If that was this post, it is already there; otherwise change the title.`,
    };
  return { reason };
}

/** A Forem community's API (v1): the key in `api-key`, a user agent (Forem refuses requests without one), JSON. */
export const FOREM: Platform = {
  name: 'The community',
  headers: { accept: 'application/vnd.forem.api-v1+json', 'user-agent': 'Herald (social publishing)' },
  timeoutMs: 60_000,
  limit: 8 * 1024 * 1024,
  outcome: 'the article may or may not have been created',
  readError: readForemError,
};

export async function callForem(
  ctx: Pick<ProviderContext, 'outbound' | 'signal'>,
  config: DevtoConfig & { baseUrl: string },
  path: string,
  request: PlatformRequest = {},
): Promise<PlatformAnswer> {
  return callPlatform(ctx, FOREM, `${config.baseUrl}/api${path}`, {
    ...request,
    headers: { 'api-key': config.apiKey, ...request.headers },
  });
}
