import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { callPlatform, type Platform, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { field } from '../oauth-api.ts';
import { baseUrlNotPublic, type PlatformApps } from '../platform-apps.ts';
import {
  googleApp,
  googlePlatform,
  googleRenewal,
  googleTokensSchema,
  googleUnavailable,
  googleSignIn,
  type GoogleTokens,
} from '../google/google-oauth.ts';
import { ProviderError, readConfig, readSettings, refuseInvalid } from '../provider.ts';
import type * as P from '../provider.ts';

export const BUSINESS_SCOPES = ['https://www.googleapis.com/auth/business.manage'] as const;

/** Google Business Profile's rules for local posts (v4 LocalPost; Business Profile photo guidelines). */
export const BUSINESS_RULES = {
  summaryMax: 1500,
  photoTypes: ['image/jpeg', 'image/png'],
  photoMinBytes: 10 * 1024,
  photoMaxBytes: 5 * 1024 * 1024,
  photoMinSide: 250,
  eventTitleMax: 58,
} as const;

const ACCOUNT = /^accounts\/\d{1,30}$/;
const LOCATION = /^locations\/\d{1,30}$/;

export const businessConfigSchema = googleTokensSchema.extend({
  account: z.string().regex(ACCOUNT),
  location: z.string().regex(LOCATION),
  locationTitle: z.string().min(1).max(300),
});
type BusinessConfig = z.infer<typeof businessConfigSchema>;

export function businessConfig(config: Record<string, unknown>): BusinessConfig {
  return readConfig(
    businessConfigSchema,
    config,
    'Google Business Profile',
    () => "The Google Business Profile channel's credentials are incomplete; connect it again.",
  );
}

/** A date, or a date and a time, in the location's own time zone (as Google's schedule takes them). */
const localDateTime = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2})?$/,
    "a local date (2026-12-24) or date and time (2026-12-24T18:30), in the location's time zone",
  );

const ACTIONS = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'] as const;

const settingsSchema = z.object({
  topicType: z
    .enum(['STANDARD', 'EVENT', 'OFFER'])
    .default('STANDARD')
    .describe(
      "The kind of post: `STANDARD` (what's new, the default), `EVENT` (needs `event`) or `OFFER` (needs `event` for its dates, may have `offer`).",
    ),
  languageCode: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a language tag such as en or fr-CA')
    .optional()
    .describe('The language of the post (BCP 47, e.g. en, fr-CA).'),
  callToAction: z
    .object({
      actionType: z
        .enum(ACTIONS)
        .describe('`BOOK`, `ORDER`, `SHOP`, `LEARN_MORE`, `SIGN_UP`, or `CALL` (the business phone number; no URL).'),
      url: z
        .url({ protocol: /^https?$/ })
        .optional()
        .describe('Where the button leads (every action but `CALL`).'),
    })
    .refine((a) => (a.actionType === 'CALL') === (a.url === undefined), {
      message: 'A call-to-action button needs a `url`, except `CALL`, which takes none.',
      path: ['url'],
    })
    .optional()
    .describe('A button under the post.'),
  event: z
    .object({
      title: z.string().trim().min(1).max(BUSINESS_RULES.eventTitleMax),
      start: localDateTime,
      end: localDateTime,
    })
    .refine((e) => e.start <= e.end, { message: 'The event ends before it starts.', path: ['end'] })
    .optional()
    .describe("An event's or offer's title and dates (`start`, `end`: a local date, or date and time, in the location's time zone)."),
  offer: z
    .object({
      couponCode: z.string().trim().min(1).max(58).optional(),
      redeemOnlineUrl: z.url({ protocol: /^https?$/ }).optional(),
      termsConditions: z.string().trim().min(1).max(5000).optional(),
    })
    .optional()
    .describe("An offer's coupon code, where to redeem it online, and its terms."),
});
type Settings = z.infer<typeof settingsSchema>;

type Ctx = Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>;

/** 403 from the Business Profile APIs means the account no longer manages the location (or the scope is missing). */
const BUSINESS: Platform = { ...googlePlatform('Google Business Profile'), authStatuses: [403] };

function call(ctx: Ctx, url: string, options: PlatformRequest): Promise<PlatformAnswer> {
  return callPlatform(ctx, BUSINESS, url, options);
}

type Place = { account: string; accountName: string; location: string; title: string };

/** The locations the signed-in person manages, across their accounts (at most 20 accounts, 100 locations each). */
async function managedLocations(ctx: Ctx, token: string): Promise<Place[]> {
  const bases = googleApp(ctx.platformApps).business;
  const { json } = await call(ctx, `${bases.accounts}/v1/accounts?pageSize=20`, { token });
  const accounts = field(json, 'accounts');
  const places: Place[] = [];
  for (const account of (Array.isArray(accounts) ? accounts : []).slice(0, 20)) {
    const name = field(account, 'name');
    if (typeof name !== 'string' || !ACCOUNT.test(name)) continue;
    const accountName = field(account, 'accountName');
    const { json: listed } = await call(ctx, `${bases.information}/v1/${name}/locations?readMask=name,title&pageSize=100`, { token });
    const locations = field(listed, 'locations');
    for (const location of Array.isArray(locations) ? locations : []) {
      const id = field(location, 'name');
      if (typeof id !== 'string' || !LOCATION.test(id)) continue;
      const title = field(location, 'title');
      places.push({
        account: name,
        accountName: typeof accountName === 'string' ? accountName : name,
        location: id,
        title: typeof title === 'string' && title ? title : id,
      });
    }
  }
  return places;
}

function connected(tokens: GoogleTokens, place: Place): { config: BusinessConfig; account: P.ConnectedAccount } {
  return {
    config: { ...tokens, account: place.account, location: place.location, locationTitle: place.title },
    account: { internalId: place.location, name: place.title, handle: null, picture: null },
  };
}

const signIn = googleSignIn({
  scopes: BUSINESS_SCOPES,
  list: managedLocations,
  none: 'This Google account manages no Business Profile location (or Google has not given the app access to the Business Profile APIs).',
  prompt: 'This Google account manages several business locations. Which one should Herald post to?',
  what: 'location',
  id: (p: Place) => `${p.account}/${p.location}`,
  // The account's name is shown only where the locations belong to several accounts.
  label: (p, all) => (new Set(all.map((q) => q.account)).size > 1 ? `${p.title} (${p.accountName})` : p.title),
  connected,
});

/** Herald's own media URL for a file, absolute (Google fetches it). */
function mediaUrl(platformApps: PlatformApps, item: Pick<P.PublishMedia, 'url'>): string {
  return new URL(item.url, `${platformApps.baseUrl}/`).toString();
}

/** Google's Date and TimeOfDay from a local `2026-12-24` or `2026-12-24T18:30`. */
function googleDate(local: string) {
  const [date, time] = local.split('T');
  const [year, month, day] = date!.split('-').map(Number);
  const [hours, minutes] = (time ?? '').split(':').map(Number);
  return { date: { year, month, day }, ...(time && { time: { hours, minutes, seconds: 0, nanos: 0 } }) };
}

function schedule(event: NonNullable<Settings['event']>) {
  const start = googleDate(event.start);
  const end = googleDate(event.end);
  return {
    title: event.title,
    schedule: {
      startDate: start.date,
      endDate: end.date,
      ...(start.time && { startTime: start.time }),
      ...(end.time && { endTime: end.time }),
    },
  };
}

function problems(
  text: string,
  media: ReadonlyArray<Omit<P.PublishMedia, 'read'>>,
  settings: Record<string, unknown>,
  part: number,
  platformApps: PlatformApps,
): P.MissingItem[] {
  const where = `value[${part}]`;
  if (part > 0)
    return [{ field: `${where}.content`, reason: 'Google Business Profile posts have no comments; remove the parts after the first.' }];
  const missing: P.MissingItem[] = [];
  const parsed = settingsSchema.safeParse(settings);
  if (parsed.success) {
    const { topicType, event } = parsed.data;
    if ((topicType === 'EVENT' || topicType === 'OFFER') && !event)
      missing.push({ field: 'settings.event', reason: `An ${topicType.toLowerCase()} post needs \`event\`: a title, a start and an end.` });
    if (topicType === 'STANDARD' && text.trim() === '')
      missing.push({ field: `${where}.content`, reason: "A what's-new post needs text." });
    if (topicType !== 'OFFER' && parsed.data.offer)
      missing.push({ field: 'settings.offer', reason: 'Only an OFFER post takes `offer`; set `topicType` to OFFER or remove it.' });
  }
  for (const item of media) {
    if (!(BUSINESS_RULES.photoTypes as readonly string[]).includes(item.mimeType)) {
      missing.push({
        field: `${where}.image`,
        reason: `Google Business Profile posts take a JPEG or PNG photo; ${item.name} is ${item.mimeType}.`,
      });
    } else if (item.size < BUSINESS_RULES.photoMinBytes || item.size > BUSINESS_RULES.photoMaxBytes) {
      missing.push({ field: `${where}.image`, reason: `Google takes photos of 10 KB to 5 MB; ${item.name} is ${item.size} bytes.` });
    } else if (item.width !== null && item.height !== null && Math.min(item.width, item.height) < BUSINESS_RULES.photoMinSide) {
      missing.push({
        field: `${where}.image`,
        reason: `Google takes photos of at least 250×250 pixels; ${item.name} is ${item.width}×${item.height}.`,
      });
    }
  }
  if (media.length > 0) {
    const notPublic = baseUrlNotPublic(platformApps);
    if (notPublic) missing.push({ field: `${where}.image`, reason: notPublic });
  }
  return missing;
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = businessConfig(ctx.config);
  refuseInvalid(googleBusinessProvider, ctx, input);
  const settings = readSettings(settingsSchema, input.settings);
  const body = {
    ...(settings.languageCode && { languageCode: settings.languageCode }),
    ...(input.text && { summary: input.text }),
    topicType: settings.topicType,
    ...(settings.callToAction && { callToAction: settings.callToAction }),
    ...(settings.event && settings.topicType !== 'STANDARD' && { event: schedule(settings.event) }),
    ...(settings.offer && settings.topicType === 'OFFER' && { offer: settings.offer }),
    ...(input.media.length && { media: input.media.map((m) => ({ mediaFormat: 'PHOTO', sourceUrl: mediaUrl(ctx.platformApps, m) })) }),
  };
  const { json } = await call(ctx, `${googleApp(ctx.platformApps).business.v4}/v4/${config.account}/${config.location}/localPosts`, {
    token: config.accessToken,
    json: body,
    write: true,
  });
  const name = field(json, 'name');
  if (typeof name !== 'string') throw new ProviderError('unknown_outcome', 'Google accepted the post without saying its name.');
  if (field(json, 'state') === 'REJECTED')
    throw new ProviderError('rejected', 'Google rejected the post (it breaks its content policy for posts).');
  const url = field(json, 'searchUrl');
  return { id: name, url: typeof url === 'string' ? url : undefined };
}

const listLocationsInput = z.object({});

/** Local posts (what's new, events, offers) on a Google Business Profile location, signed in through the operator's Google app. */
export const googleBusinessProvider: P.Provider = {
  identifier: 'google-business',
  name: 'Google Business Profile',
  textLimit: { max: BUSINESS_RULES.summaryMax, unit: 'characters' },
  countText: (text) => [...text].length,
  toText: htmlToPlainText,
  settingsSchema,
  configSchema: businessConfigSchema,
  configUrls: [],
  mediaRules: { maxItems: 1, mimeTypes: [...BUSINESS_RULES.photoTypes], maxBytes: BUSINESS_RULES.photoMaxBytes, required: false },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"google-business"}`: the answer\'s `url` opens Google\'s sign-in as someone who manages the business; Herald lists the locations they manage and asks which one when there are several. Google fetches a post\'s photo from Herald, so BASE_URL must be public. The server\'s operator registers the Google app (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET) with access to the Business Profile APIs.',
  tools: {
    listLocations: {
      description: 'Lists the Business Profile locations the connected Google account manages (account, location, title).',
      input: listLocationsInput,
      async run(ctx) {
        const { accessToken } = businessConfig(ctx.config);
        return (await managedLocations(ctx, accessToken)).map((p) => ({ account: p.account, location: p.location, title: p.title }));
      },
    },
  },
  unavailable: googleUnavailable,
  validate: ({ text, media, settings, part, platformApps }) => problems(text, media, settings, part, platformApps),
  signIn,
  renewal: googleRenewal('Google Business Profile', businessConfig),
  publish,
  async comment() {
    throw new ProviderError('rejected', 'Google Business Profile posts have no comments.');
  },
};
