import * as z from 'zod';
import { grouped } from '../../lib/numbers.ts';
import { htmlToPlainText } from '../../content/html.ts';
import { callPlatform, readMedia, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { oauthPlatform, refreshTokenRenewal, field, pause, readTokens, storedTokens, type RefreshedTokens } from '../oauth-api.ts';
import { appUnavailable, platformApp } from '../platform-apps.ts';
import { ProviderError, readConfig } from '../provider.ts';
import type * as P from '../provider.ts';
import { linkedinMemberMetrics, linkedinPageMetrics } from './linkedin.metrics.ts';

const LIMIT = 3000;
/** A comment's text limit (LinkedIn's comment box and its Comments API take 1,250 characters). */
const COMMENT_LIMIT = 1250;
/** The monthly version of LinkedIn's versioned API Herald speaks unless LINKEDIN_API_VERSION says otherwise. */
export const LINKEDIN_VERSION = '202510';
const PERSON_SCOPES = 'openid profile w_member_social';
/** Members' posts' numbers (memberCreatorPostAnalytics), asked for when the operator's app has that API (LINKEDIN_MEMBER_ANALYTICS). */
const MEMBER_ANALYTICS_SCOPE = 'r_member_postAnalytics';
const PAGE_SCOPES = 'openid profile w_member_social w_organization_social r_organization_admin';
/** Access tokens live 60 days; renewed (where LinkedIn gave a refresh token) when a week is left. */
const REFRESH_MARGIN_MS = 7 * 24 * 3600_000;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'];
const VIDEO_TYPES = ['video/mp4'];
const MAX_POLLS = 60;

export const linkedinConfigSchema = z.object({
  accessToken: z.string().min(10).max(4000),
  refreshToken: z.string().min(10).max(4000).optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  personId: z.string().min(1).max(100),
  /** For `linkedin-page`: the organization (page) id posts go to. */
  page: z
    .string()
    .regex(/^\d{1,20}$/)
    .optional(),
});
type LinkedInConfig = z.infer<typeof linkedinConfigSchema>;

const settingsSchema = z.object({
  visibility: z
    .enum(['PUBLIC', 'CONNECTIONS'])
    .optional()
    .describe("Who sees it: `PUBLIC` (default) or `CONNECTIONS` (the member's network; not for pages)."),
  alt: z.record(z.string(), z.string().max(4086)).optional().describe('Alt text for images, keyed by the media id (or its URL).'),
});
type Settings = z.infer<typeof settingsSchema>;

export function linkedinConfig(config: Record<string, unknown>): LinkedInConfig {
  return readConfig(linkedinConfigSchema, config, 'LinkedIn', () => "The LinkedIn channel's credentials are incomplete; connect it again.");
}

/** LinkedIn's errors: `{message, status, serviceErrorCode}` (Rest.li) or OAuth's `{error, error_description}`. */
function readLinkedInError(answer: PlatformAnswer) {
  const json = answer.json;
  const reason = [field(json, 'message'), field(json, 'error_description'), field(json, 'error')].find((v) => typeof v === 'string') as
    string | undefined;
  // 403: the token lacks the permission (a scope, or page admin rights it no longer has).
  return { reason, ...(answer.status === 403 && { kind: 'auth' as const }) };
}

const LINKEDIN = oauthPlatform('LinkedIn', readLinkedInError);

export function api(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  path: string,
  options: PlatformRequest,
): Promise<PlatformAnswer> {
  const app = platformApp(ctx.platformApps, 'linkedin');
  return callPlatform(ctx, LINKEDIN, `${app.apiBase}${path}`, {
    ...options,
    headers: { 'linkedin-version': app.version ?? LINKEDIN_VERSION, 'x-restli-protocol-version': '2.0.0', ...options.headers },
  });
}

async function tokenRequest(ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>, form: Record<string, string>, now: Date) {
  const app = platformApp(ctx.platformApps, 'linkedin');
  const { json } = await callPlatform(ctx, LINKEDIN, `${app.signInBase}/oauth/v2/accessToken`, {
    form: { ...form, client_id: app.clientId, client_secret: app.clientSecret },
  });
  return readTokens('LinkedIn', json, now);
}

async function person(ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>, token: string): Promise<P.ConnectedAccount> {
  const { json } = await api(ctx, '/v2/userinfo', { token });
  const sub = field(json, 'sub');
  if (typeof sub !== 'string') throw new ProviderError('rejected', 'LinkedIn did not say whose account this is.');
  const name = field(json, 'name');
  const picture = field(json, 'picture');
  return {
    internalId: sub,
    name: typeof name === 'string' && name ? name : 'LinkedIn member',
    handle: null,
    picture: typeof picture === 'string' ? picture : null,
  };
}

/** The ids of the pages the member is an approved administrator of. */
async function administeredPages(ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>, token: string): Promise<string[]> {
  const { json } = await api(ctx, '/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&count=100', { token });
  const elements = field(json, 'elements');
  return (
    Array.isArray(elements) ? elements.map((e) => field(e, 'organization')).filter((o): o is string => typeof o === 'string') : []
  ).map((urn) => urn.split(':').pop()!);
}

async function organization(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  token: string,
  page: string,
): Promise<P.ConnectedAccount> {
  const { json: org } = await api(ctx, `/rest/organizations/${page}`, { token });
  const name = field(org, 'localizedName');
  const vanity = field(org, 'vanityName');
  return {
    internalId: page,
    name: typeof name === 'string' ? name : `LinkedIn page ${page}`,
    handle: typeof vanity === 'string' ? vanity : null,
    picture: null,
  };
}

function pageConfig(tokens: RefreshedTokens, personId: string, page: string): LinkedInConfig {
  return {
    ...storedTokens(tokens),
    personId,
    page,
  };
}

function signIn(forPage: boolean): P.BrowserSignIn {
  return {
    startSchema: forPage
      ? z.object({
          page: z
            .string()
            .regex(/^\d{1,20}$/, "the page's numeric organization id (in its admin URL: linkedin.com/company/<id>/admin)")
            .optional()
            .meta({ title: 'Page ID' })
            .describe(
              'Connect this page (its numeric organization id, in its admin URL); left out, you choose among the pages you administer when you administer several.',
            ),
        })
      : z.object({}),
    async start(ctx, { start, state }) {
      const app = platformApp(ctx.platformApps, 'linkedin');
      const url = new URL('/oauth/v2/authorization', app.signInBase);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: ctx.redirectUri,
        state,
        scope: forPage ? PAGE_SCOPES : app.memberAnalytics ? `${PERSON_SCOPES} ${MEMBER_ANALYTICS_SCOPE}` : PERSON_SCOPES,
      }).toString();
      return { url: url.toString(), pending: forPage && typeof start.page === 'string' ? { page: start.page } : {} };
    },
    async finish(ctx, { code, pending }) {
      const tokens = await tokenRequest(ctx, { grant_type: 'authorization_code', code, redirect_uri: ctx.redirectUri }, new Date());
      const member = await person(ctx, tokens.accessToken);
      if (!forPage) {
        const config: LinkedInConfig = {
          ...storedTokens(tokens),
          personId: member.internalId,
        };
        return { config, account: member };
      }
      const pages = await administeredPages(ctx, tokens.accessToken);
      const asked = typeof pending.page === 'string' ? pending.page : undefined;
      if (pages.length === 0) throw new ProviderError('rejected', 'You do not administer any LinkedIn page.');
      if (asked !== undefined && !pages.includes(asked))
        throw new ProviderError(
          'rejected',
          `You do not administer the LinkedIn page ${asked}; the pages you administer are ${pages.join(', ')}.`,
        );
      const page = asked ?? (pages.length === 1 ? pages[0] : undefined);
      if (page !== undefined)
        return { config: pageConfig(tokens, member.internalId, page), account: await organization(ctx, tokens.accessToken, page) };
      // Several pages: the person picks one on Herald's page; the tokens wait sealed with the choice's state.
      const options = await Promise.all(
        pages.slice(0, 50).map(async (id) => ({ id, label: (await organization(ctx, tokens.accessToken, id)).name })),
      );
      return {
        choose: {
          prompt: 'You administer several LinkedIn pages. Which one should Herald post to?',
          options,
          pending: { tokens, personId: member.internalId, pages },
        },
      };
    },
    async choose(ctx, { choice, pending }) {
      const pages = Array.isArray(pending.pages) ? pending.pages.map(String) : [];
      if (!pages.includes(choice)) throw new ProviderError('rejected', 'That page was not one of the choices; start connecting again.');
      const tokens = pending.tokens as RefreshedTokens;
      return { config: pageConfig(tokens, String(pending.personId), choice), account: await organization(ctx, tokens.accessToken, choice) };
    },
  };
}

/** Little Text: LinkedIn reads these characters as markup unless escaped with a backslash. */
export function escapeLittleText(text: string): string {
  return text.replace(/[\\|{}@[\]()<>#*_~]/g, (c) => `\\${c}`);
}

function author(config: LinkedInConfig): string {
  return config.page ? `urn:li:organization:${config.page}` : `urn:li:person:${config.personId}`;
}

async function uploadImage(ctx: P.ProviderContext, token: string, owner: string, item: P.PublishMedia): Promise<string> {
  const bytes = await readMedia(item);
  const { json } = await api(ctx, '/rest/images?action=initializeUpload', { token, json: { initializeUploadRequest: { owner } } });
  const uploadUrl = field(json, 'value', 'uploadUrl');
  const image = field(json, 'value', 'image');
  if (typeof uploadUrl !== 'string' || typeof image !== 'string')
    throw new ProviderError('transient', `LinkedIn did not start the upload of ${item.name}.`);
  await callPlatform(ctx, LINKEDIN, uploadUrl, { method: 'PUT', token, body: bytes, contentType: item.mimeType });
  return image;
}

async function uploadVideo(ctx: P.ProviderContext, token: string, owner: string, item: P.PublishMedia): Promise<string> {
  const bytes = await readMedia(item);
  const { json } = await api(ctx, '/rest/videos?action=initializeUpload', {
    token,
    json: { initializeUploadRequest: { owner, fileSizeBytes: bytes.length, uploadCaptions: false, uploadThumbnail: false } },
  });
  const video = field(json, 'value', 'video');
  const instructions = field(json, 'value', 'uploadInstructions');
  if (typeof video !== 'string' || !Array.isArray(instructions))
    throw new ProviderError('transient', `LinkedIn did not start the upload of ${item.name}.`);
  const etags: string[] = [];
  for (const part of instructions) {
    const first = Number(field(part, 'firstByte'));
    const last = Number(field(part, 'lastByte'));
    const answer = await callPlatform(ctx, LINKEDIN, String(field(part, 'uploadUrl')), {
      method: 'PUT',
      body: bytes.subarray(first, last + 1),
      contentType: 'application/octet-stream',
    });
    etags.push(answer.headers.get('etag') ?? '');
  }
  const uploadToken = field(json, 'value', 'uploadToken');
  await api(ctx, '/rest/videos?action=finalizeUpload', {
    token,
    json: { finalizeUploadRequest: { video, uploadToken: typeof uploadToken === 'string' ? uploadToken : '', uploadedPartIds: etags } },
  });
  for (let poll = 0; poll < MAX_POLLS; poll++) {
    const { json: state } = await api(ctx, `/rest/videos/${encodeURIComponent(video)}`, { token });
    const status = field(state, 'status');
    if (status === 'AVAILABLE') return video;
    if (status === 'PROCESSING_FAILED') throw new ProviderError('rejected', `LinkedIn could not process ${item.name}.`);
    await pause(Math.min(5000, 250 * 2 ** poll), ctx.signal);
  }
  throw new ProviderError('transient', `LinkedIn is still processing ${item.name}; the publish will be tried again.`);
}

/** Why LinkedIn would refuse a comment's text or media, and which of the two; null when it would not. One image at most, no video, 1,250 characters. */
function commentProblem(
  text: string,
  media: ReadonlyArray<Pick<P.PublishMedia, 'mimeType'>>,
): { on: 'content' | 'image'; reason: string } | null {
  const length = [...text].length;
  if (length > COMMENT_LIMIT)
    return {
      on: 'content',
      reason: `The comment is ${length} characters long; LinkedIn comments take ${grouped(COMMENT_LIMIT)}.`,
    };
  if (media.length > 1) return { on: 'image', reason: `LinkedIn comments take one image; this one has ${media.length} files.` };
  if (media.some((m) => !IMAGE_TYPES.includes(m.mimeType)))
    return { on: 'image', reason: 'LinkedIn comments take one image, not a video; put the video in the post itself.' };
  return null;
}

function altText(settings: Settings, item: Pick<P.PublishMedia, 'id' | 'url'>): string | undefined {
  return settings.alt?.[item.id] ?? settings.alt?.[item.url];
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = linkedinConfig(ctx.config);
  const settings = settingsSchema.parse(input.settings);
  const owner = author(config);
  const media: Array<{ id: string; altText?: string }> = [];
  for (const item of input.media) {
    const id = item.mimeType.startsWith('video/')
      ? await uploadVideo(ctx, config.accessToken, owner, item)
      : await uploadImage(ctx, config.accessToken, owner, item);
    const alt = altText(settings, item);
    media.push({ id, ...(alt && { altText: alt }) });
  }
  const content = media.length === 1 ? { media: media[0] } : media.length > 1 ? { multiImage: { images: media } } : undefined;
  const answer = await api(ctx, '/rest/posts', {
    token: config.accessToken,
    write: true,
    json: {
      author: owner,
      commentary: escapeLittleText(input.text),
      visibility: config.page ? 'PUBLIC' : (settings.visibility ?? 'PUBLIC'),
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      ...(content && { content }),
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
    },
  });
  const urn = answer.headers.get('x-restli-id') ?? answer.headers.get('x-linkedin-id');
  if (!urn) throw new ProviderError('unknown_outcome', 'LinkedIn accepted the post without saying its id.');
  return { id: urn, url: `https://www.linkedin.com/feed/update/${urn}/` };
}

/** A comment under the post (the Comments API of social actions), with its one image if it has one. */
async function comment(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = linkedinConfig(ctx.config);
  const post = input.root?.id;
  if (!post) throw new ProviderError('rejected', 'The post this comment belongs to has no LinkedIn id.');
  const refused = commentProblem(input.text, input.media);
  if (refused) throw new ProviderError('rejected', refused.reason);
  const actor = author(config);
  const image = input.media[0] ? await uploadImage(ctx, config.accessToken, actor, input.media[0]) : undefined;
  const answer = await api(ctx, `/rest/socialActions/${encodeURIComponent(post)}/comments`, {
    token: config.accessToken,
    write: true,
    json: { actor, object: post, message: { text: input.text }, ...(image && { content: [{ entity: { image } }] }) },
  });
  const id = answer.headers.get('x-restli-id') ?? field(answer.json, '$URN') ?? field(answer.json, 'id');
  if (typeof id !== 'string') throw new ProviderError('unknown_outcome', 'LinkedIn accepted the comment without saying its id.');
  return { id, url: `https://www.linkedin.com/feed/update/${post}/` };
}

const renewal = refreshTokenRenewal('LinkedIn', {
  // Without a refresh token (LinkedIn gives one to some apps only) the token is used until it expires, then the channel is reconnected.
  marginMs: (config) => (typeof config.refreshToken === 'string' ? REFRESH_MARGIN_MS : 0),
  read: linkedinConfig,
  tokenRequest,
  noRefreshToken: 'The LinkedIn access token expired (LinkedIn gave no refresh token for this app); connect the channel again.',
});

function linkedin(forPage: boolean): P.Provider {
  return {
    identifier: forPage ? 'linkedin-page' : 'linkedin',
    name: forPage ? 'LinkedIn page' : 'LinkedIn',
    textLimit: { max: LIMIT, unit: 'characters' },
    countText: (text) => [...text].length,
    toText: htmlToPlainText,
    settingsSchema,
    configSchema: linkedinConfigSchema,
    configUrls: [],
    mediaRules: { maxItems: 20, mimeTypes: [...IMAGE_TYPES, ...VIDEO_TYPES], maxBytes: 200 * 1024 * 1024, required: false },
    idempotentWrites: false,
    connectHelp: forPage
      ? 'Connect with `{"provider":"linkedin-page"}` (the page the person administers), or `{"provider":"linkedin-page","page":"<organization id>"}` (the number in the page\'s admin URL) when they administer several; the answer\'s `url` opens LinkedIn\'s sign-in, and the channel is created when a page administrator approves. The server\'s operator registers the LinkedIn app (LINKEDIN_CLIENT_ID, LINKEDIN_CLIENT_SECRET).'
      : 'Connect with `{"provider":"linkedin"}`: the answer\'s `url` opens LinkedIn\'s sign-in, and the channel is created when the person approves. The server\'s operator registers the LinkedIn app (LINKEDIN_CLIENT_ID, LINKEDIN_CLIENT_SECRET).',
    tools: {},
    unavailable: (platformApps) => appUnavailable(platformApps, 'linkedin'),
    validate({ text, media, settings, part }): P.MissingItem[] {
      const missing: P.MissingItem[] = [];
      const videos = media.filter((m) => m.mimeType.startsWith('video/')).length;
      if (videos > 0 && media.length > 1)
        missing.push({ field: `value[${part}].image`, reason: 'LinkedIn attaches one video alone, or up to 20 images.' });
      if (part > 0) {
        const problem = commentProblem(text, media);
        if (problem) missing.push({ field: `value[${part}].${problem.on}`, reason: problem.reason });
        const parsed = settingsSchema.safeParse(settings);
        if (!problem && parsed.success && media[0] && altText(parsed.data, media[0])) {
          missing.push({
            field: 'settings.alt',
            reason: `LinkedIn shows no description on a comment's image; remove the one for value[${part}].image[0], or move the image to the post.`,
          });
        }
      }
      return missing;
    },
    signIn: signIn(forPage),
    metrics: forPage ? linkedinPageMetrics : linkedinMemberMetrics,
    renewal,
    publish,
    comment,
  };
}

export const linkedinProvider = linkedin(false);
export const linkedinPageProvider = linkedin(true);
