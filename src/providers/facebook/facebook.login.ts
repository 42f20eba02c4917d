import { field } from '../oauth-api.ts';
import { GRAPH_VERSION, graph } from '../graph-api.ts';
import { platformApp } from '../platform-apps.ts';
import { ProviderError, type SignInContext } from '../provider.ts';

/** A page the person manages, with its page token and the Instagram professional account linked to it, if any. */
export type ManagedPage = {
  id: string;
  name: string;
  accessToken: string;
  picture: string | null;
  instagram: { id: string; username: string; name: string | null; picture: string | null } | null;
};

const PAGE_FIELDS = 'id,name,access_token,tasks,picture{url},instagram_business_account{id,username,name,profile_picture_url}';

/** The Facebook Login dialog, asking for `scopes`. */
export function loginUrl(ctx: SignInContext, scopes: readonly string[], state: string): string {
  const app = platformApp(ctx.platformApps, 'facebook');
  const url = new URL(`${app.signInBase}/${app.version ?? GRAPH_VERSION}/dialog/oauth`);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: ctx.redirectUri,
    state,
    response_type: 'code',
    scope: scopes.join(','),
  }).toString();
  return url.toString();
}

/**
 * Exchanges the code for a user token, then that (one or two hours) for a long-lived one
 * (about 60 days): page tokens read with a long-lived user token do not expire.
 */
export async function longLivedUserToken(ctx: SignInContext, code: string): Promise<string> {
  const app = platformApp(ctx.platformApps, 'facebook');
  const { json: short } = await graph(
    ctx,
    'facebook',
    `/oauth/access_token?${new URLSearchParams({
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: ctx.redirectUri,
      code,
    }).toString()}`,
  );
  const shortToken = field(short, 'access_token');
  if (typeof shortToken !== 'string') throw new ProviderError('rejected', 'Facebook did not issue an access token.');
  const { json: long } = await graph(
    ctx,
    'facebook',
    `/oauth/access_token?${new URLSearchParams({
      grant_type: 'fb_exchange_token',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      fb_exchange_token: shortToken,
    }).toString()}`,
  );
  const token = field(long, 'access_token');
  if (typeof token !== 'string') throw new ProviderError('rejected', 'Facebook did not issue a long-lived access token.');
  return token;
}

function readPage(item: unknown): ManagedPage | null {
  const id = field(item, 'id');
  const name = field(item, 'name');
  const accessToken = field(item, 'access_token');
  if (typeof id !== 'string' || typeof accessToken !== 'string') return null;
  const tasks = field(item, 'tasks');
  // A person who cannot create content on the page cannot publish through Herald either.
  if (Array.isArray(tasks) && !tasks.includes('CREATE_CONTENT')) return null;
  const ig = field(item, 'instagram_business_account');
  const igId = field(ig, 'id');
  const igUsername = field(ig, 'username');
  const picture = field(item, 'picture', 'data', 'url');
  const igName = field(ig, 'name');
  const igPicture = field(ig, 'profile_picture_url');
  return {
    id,
    name: typeof name === 'string' ? name : `Facebook page ${id}`,
    accessToken,
    picture: typeof picture === 'string' ? picture : null,
    instagram:
      typeof igId === 'string' && typeof igUsername === 'string'
        ? {
            id: igId,
            username: igUsername,
            name: typeof igName === 'string' ? igName : null,
            picture: typeof igPicture === 'string' ? igPicture : null,
          }
        : null,
  };
}

/** The pages the person manages and may post to (`GET /me/accounts`, up to 100). */
export async function managedPages(ctx: SignInContext, userToken: string): Promise<ManagedPage[]> {
  const { json } = await graph(ctx, 'facebook', `/me/accounts?fields=${encodeURIComponent(PAGE_FIELDS)}&limit=100`, {
    token: userToken,
  });
  const data = field(json, 'data');
  return (Array.isArray(data) ? data : []).map(readPage).filter((p): p is ManagedPage => p !== null);
}

/** One page the person manages, read again when they pick it (its page token comes with it). */
export async function managedPage(ctx: SignInContext, userToken: string, pageId: string): Promise<ManagedPage> {
  const { json } = await graph(ctx, 'facebook', `/${encodeURIComponent(pageId)}?fields=${encodeURIComponent(PAGE_FIELDS)}`, {
    token: userToken,
  });
  const page = readPage(json);
  if (!page) throw new ProviderError('rejected', 'You can no longer publish to that Facebook page; start connecting again.');
  return page;
}
