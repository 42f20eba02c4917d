import * as z from 'zod';
import { expiryFrom, field, oauthPlatform, readTokens } from '../oauth-api.ts';
import { callPlatform, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { platformApp, type PlatformApps } from '../platform-apps.ts';
import { ProviderError, readConfig, type ProviderContext } from '../provider.ts';

export const pinterestConfigSchema = z.object({
  accessToken: z.string().min(10).max(4000),
  refreshToken: z.string().min(10).max(4000),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  refreshExpiresAt: z.iso.datetime({ offset: true }).optional(),
  username: z.string().min(1).max(100),
});
export type PinterestConfig = z.infer<typeof pinterestConfigSchema>;

export function pinterestConfig(config: Record<string, unknown>): PinterestConfig {
  return readConfig(
    pinterestConfigSchema,
    config,
    'Pinterest',
    () => "The Pinterest channel's credentials are incomplete; connect it again.",
  );
}

/** Pinterest's error answers: `{code, message}`. */
export function readPinterestError(answer: PlatformAnswer) {
  const message = field(answer.json, 'message');
  const reason = typeof message === 'string' && message ? message : undefined;
  if (answer.status === 404 && reason && /board/i.test(reason))
    return { reason: `${reason} Choose one of the account's boards (the \`boards\` tool).` };
  return { reason };
}

export const PINTEREST = oauthPlatform('Pinterest', readPinterestError);

type Ctx = Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>;

export function pinterestUrl(platformApps: PlatformApps, path: string): string {
  return `${platformApp(platformApps, 'pinterest').apiBase}/v5${path}`;
}

export function pinterestCall(ctx: Ctx, path: string, options: PlatformRequest): Promise<PlatformAnswer> {
  return callPlatform(ctx, PINTEREST, pinterestUrl(ctx.platformApps, path), options);
}

/** Pinterest's token endpoint takes the app's credentials by HTTP Basic. */
export async function tokenRequest(ctx: Ctx, form: Record<string, string>, now: Date) {
  const app = platformApp(ctx.platformApps, 'pinterest');
  const { json } = await pinterestCall(ctx, '/oauth/token', {
    form,
    headers: { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
  });
  const tokens = readTokens('Pinterest', json, now);
  const refreshExpiresAt = expiryFrom(now, field(json, 'refresh_token_expires_in'));
  return { ...tokens, ...(refreshExpiresAt && { refreshExpiresAt }) };
}

/** The signed-in account: `GET /user_account`. */
export async function userAccount(ctx: Ctx, token: string) {
  const { json } = await pinterestCall(ctx, '/user_account', { token });
  const username = field(json, 'username');
  if (typeof username !== 'string') throw new ProviderError('rejected', 'Pinterest did not say whose account this is.');
  const id = field(json, 'id');
  const name = field(json, 'business_name');
  const picture = field(json, 'profile_image');
  return {
    internalId: typeof id === 'string' && id ? id : username,
    name: typeof name === 'string' && name ? name : username,
    handle: username,
    picture: typeof picture === 'string' ? picture : null,
  };
}
