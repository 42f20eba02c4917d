import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { expiresSoon, field, renewWithRefreshToken, waitFor } from '../oauth-api.ts';
import { callPlatform, readMedia } from '../platform-call.ts';
import { appUnavailable, baseUrlNotPublic, platformApp, type PlatformApps } from '../platform-apps.ts';
import { lengthProblem, ProviderError, refuseInvalid } from '../provider.ts';
import type * as P from '../provider.ts';
import {
  PINTEREST,
  pinterestCall,
  pinterestConfig,
  pinterestConfigSchema,
  tokenRequest,
  userAccount,
  type PinterestConfig,
} from './pinterest.client.ts';
import { pinterestMetrics } from './pinterest.metrics.ts';

export const PINTEREST_SCOPES = 'boards:read,pins:read,pins:write,user_accounts:read';
const DESCRIPTION_MAX = 800;
const TITLE_MAX = 100;
const LINK_MAX = 2048;
const ALT_MAX = 500;
const IMAGES_MAX = 5;
const IMAGE_BYTES_MAX = 20 * 1024 * 1024;
const VIDEO_BYTES_MAX = 2 * 1024 * 1024 * 1024;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/bmp', 'image/tiff'];
const VIDEO_TYPES = ['video/mp4', 'video/quicktime'];
/** A video pin lasts 4 seconds to 15 minutes (Pinterest's video pin specifications). */
const VIDEO_SECONDS = [4, 15 * 60] as const;
/** Access tokens live 30 days; renewed when a day is left. */
const REFRESH_MARGIN_MS = 24 * 3600_000;
/** Waits between checks of an uploaded video being processed: about two minutes in all. */
const POLL_DELAYS_MS = [0, 1000, 2000, 3000, 5000, ...Array<number>(11).fill(10_000)];
const UPLOAD_TIMEOUT_MS = 10 * 60_000;
const NO_COMMENTS = "Pinterest's API has no way to post comments; remove the comments.";

const pinterestId = (what: string) => z.string({ error: what }).regex(/^\d{1,30}$/, what);

const settingsSchema = z.object({
  board: pinterestId('Choose the board to pin to (the `boards` tool lists them).').describe(
    "The board's id; required, and taken from the channel's preferred settings when left out (the default board the person chose when connecting). The `boards` tool lists the account's boards.",
  ),
  section: pinterestId('A board section is given by its id (the `sections` tool lists them).')
    .optional()
    .describe("A section of the board, by id (the `sections` tool lists a board's sections)."),
  title: z.string().max(TITLE_MAX, `Pinterest takes titles of up to ${TITLE_MAX} characters.`).optional().describe('The pin title.'),
  link: z
    .url({ protocol: /^https?$/, error: 'The link must be an http(s) address.' })
    .max(LINK_MAX, `Pinterest takes links of up to ${LINK_MAX} characters.`)
    .optional()
    .describe('Where the pin leads when clicked.'),
  alt: z
    .string()
    .max(ALT_MAX, `Pinterest takes alt text of up to ${ALT_MAX} characters.`)
    .optional()
    .describe("The image's description (alt text)."),
  coverFrameSeconds: z
    .number()
    .min(0)
    .optional()
    .describe('Video pins: the frame (seconds from the start) used as the cover; the first by default.'),
});
type Settings = z.infer<typeof settingsSchema>;

/** Pinterest counts a description's characters (code points). */
export function countPinterestText(text: string): number {
  return [...text].length;
}

const isVideo = (m: Pick<P.PublishMedia, 'mimeType'>) => m.mimeType.startsWith('video/');

function mediaUrl(platformApps: PlatformApps, item: P.PublishMedia): string {
  return new URL(item.url, `${platformApps.baseUrl}/`).toString();
}

/** Registers a video with Pinterest, uploads it to the address given, and waits until Pinterest has processed it. */
async function uploadVideo(ctx: P.ProviderContext, config: PinterestConfig, item: P.PublishMedia): Promise<string> {
  const { json } = await pinterestCall(ctx, '/media', { token: config.accessToken, json: { media_type: 'video' } });
  const mediaId = field(json, 'media_id');
  const uploadUrl = field(json, 'upload_url');
  const parameters = field(json, 'upload_parameters');
  if (typeof mediaId !== 'string' || typeof uploadUrl !== 'string')
    throw new ProviderError('transient', 'Pinterest did not give an upload address for the video.');
  const form = new FormData();
  for (const [name, value] of Object.entries(parameters && typeof parameters === 'object' ? parameters : {}))
    if (typeof value === 'string') form.set(name, value);
  form.set('file', new Blob([await readMedia(item)], { type: item.mimeType }), item.name);
  await callPlatform(ctx, PINTEREST, uploadUrl, { multipart: form, timeoutMs: UPLOAD_TIMEOUT_MS });
  for (const delay of POLL_DELAYS_MS) {
    if (delay) await waitFor(ctx, delay);
    const status = field((await pinterestCall(ctx, `/media/${encodeURIComponent(mediaId)}`, { token: config.accessToken })).json, 'status');
    if (status === 'succeeded') return mediaId;
    if (status === 'failed') throw new ProviderError('rejected', `Pinterest could not process the video ${item.name}.`);
  }
  // No pin exists yet: trying again later uploads the video again, which cannot pin twice.
  throw new ProviderError('transient', 'Pinterest is still processing the video; the publish will be tried again.');
}

async function mediaSource(ctx: P.ProviderContext, config: PinterestConfig, input: P.PublishInput, settings: Settings) {
  const video = input.media.find(isVideo);
  if (video)
    return {
      source_type: 'video_id',
      media_id: await uploadVideo(ctx, config, video),
      cover_image_key_frame_time: settings.coverFrameSeconds ?? 0,
    };
  const notPublic = baseUrlNotPublic(ctx.platformApps);
  if (notPublic) throw new ProviderError('rejected', notPublic);
  if (input.media.length === 1) return { source_type: 'image_url', url: mediaUrl(ctx.platformApps, input.media[0]!) };
  return { source_type: 'multiple_image_urls', items: input.media.map((m) => ({ url: mediaUrl(ctx.platformApps, m) })) };
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  refuseInvalid(pinterestProvider, ctx, input);
  const config = pinterestConfig(ctx.config);
  const settings = settingsSchema.parse(input.settings);
  const source = await mediaSource(ctx, config, input, settings);
  const { json } = await pinterestCall(ctx, '/pins', {
    token: config.accessToken,
    write: true,
    json: {
      board_id: settings.board,
      ...(settings.section && { board_section_id: settings.section }),
      ...(settings.title && { title: settings.title }),
      ...(input.text && { description: input.text }),
      ...(settings.link && { link: settings.link }),
      ...(settings.alt && { alt_text: settings.alt }),
      media_source: source,
    },
  });
  const id = field(json, 'id');
  if (typeof id !== 'string') throw new ProviderError('unknown_outcome', 'Pinterest created the pin without saying its id.');
  return { id, url: `https://www.pinterest.com/pin/${id}/` };
}

const signIn: P.BrowserSignIn = {
  startSchema: z.object({}),
  async start(ctx, { state }) {
    const app = platformApp(ctx.platformApps, 'pinterest');
    const url = new URL('/oauth/', app.signInBase);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: ctx.redirectUri,
      response_type: 'code',
      scope: PINTEREST_SCOPES,
      state,
    }).toString();
    return { url: url.toString(), pending: {} };
  },
  // The person picks the default board here (with one board, it is taken at once; with none, posts name theirs).
  async finish(ctx, { code }) {
    const tokens = await tokenRequest(ctx, { grant_type: 'authorization_code', code, redirect_uri: ctx.redirectUri }, new Date());
    if (!tokens.refreshToken) throw new ProviderError('rejected', 'Pinterest did not issue a refresh token.');
    const account = await userAccount(ctx, tokens.accessToken);
    const config: PinterestConfig = {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      ...(tokens.expiresAt && { expiresAt: tokens.expiresAt }),
      ...(tokens.refreshExpiresAt && { refreshExpiresAt: tokens.refreshExpiresAt }),
      username: account.handle,
    };
    const boards = await allBoards(ctx, tokens.accessToken);
    if (boards.length === 0) return { config, account };
    if (boards.length === 1) return { config, account, preferredSettings: { board: boards[0]!.id } };
    return {
      choose: {
        prompt: 'Which board should this channel pin to by default? A post can still name another board (its `board` setting).',
        options: boards.map((b) => ({ id: b.id, label: b.secret ? `${b.name} (secret)` : b.name })),
        pending: { config, account, boards: boards.map((b) => b.id) },
      },
    };
  },
  async choose(_ctx, { choice, pending }) {
    const boards = Array.isArray(pending.boards) ? (pending.boards as unknown[]) : [];
    if (!boards.includes(choice)) throw new ProviderError('rejected', 'That board was not one of the choices; start connecting again.');
    return {
      config: pending.config as PinterestConfig,
      account: pending.account as P.ConnectedAccount,
      preferredSettings: { board: choice },
    };
  },
};

type Board = { id: string; name: string; secret: boolean };
/** The most boards offered to choose from at sign-in (pages of 100, followed by `bookmark`). */
const BOARD_CHOICES_MAX = 500;

/** The account's boards (`GET /boards`, every page up to `BOARD_CHOICES_MAX`), for the choice of the default board. */
async function allBoards(ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>, token: string): Promise<Board[]> {
  const boards: Board[] = [];
  let bookmark: string | null = null;
  do {
    const query = new URLSearchParams({ page_size: '100', ...(bookmark && { bookmark }) });
    const { json } = await pinterestCall(ctx, `/boards?${query.toString()}`, { token });
    const items = field(json, 'items');
    for (const item of Array.isArray(items) ? items : []) {
      const id = field(item, 'id');
      const name = field(item, 'name');
      if (typeof id === 'string' && /^\d{1,30}$/.test(id))
        boards.push({ id, name: typeof name === 'string' && name ? name : `Board ${id}`, secret: field(item, 'privacy') === 'SECRET' });
    }
    const next = field(json, 'bookmark');
    bookmark = typeof next === 'string' && next ? next : null;
  } while (bookmark && boards.length < BOARD_CHOICES_MAX);
  return boards.slice(0, BOARD_CHOICES_MAX);
}

const page = z.string().max(2000).optional().describe('The `bookmark` of the previous answer, for the next page.');

/** Pins images and videos to a Pinterest board through API v5, signed in through the operator's app. */
export const pinterestProvider: P.Provider = {
  identifier: 'pinterest',
  name: 'Pinterest',
  textLimit: { max: DESCRIPTION_MAX, unit: 'characters' },
  countText: countPinterestText,
  toText: htmlToPlainText,
  settingsSchema,
  configSchema: pinterestConfigSchema,
  configUrls: [],
  mediaRules: { maxItems: IMAGES_MAX, mimeTypes: [...IMAGE_TYPES, ...VIDEO_TYPES], maxBytes: VIDEO_BYTES_MAX, required: true },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"pinterest"}`: the answer\'s `url` opens Pinterest\'s sign-in; after approving, the person picks the default board (kept as the channel\'s preferred `board` setting) and the channel is created. A post may name another board (`settings.board`, listed by the `boards` tool). The server\'s operator registers the Pinterest app (PINTEREST_APP_ID, PINTEREST_APP_SECRET); images are fetched by Pinterest from Herald, so BASE_URL must be public.',
  tools: {
    boards: {
      description: "The account's boards (id, name, privacy), 100 a page; pass `bookmark` for the next page.",
      input: z.object({ bookmark: page }),
      async run(ctx, data) {
        const { bookmark } = z.object({ bookmark: page }).parse(data);
        const query = new URLSearchParams({ page_size: '100', ...(bookmark && { bookmark }) });
        const { json } = await pinterestCall(ctx, `/boards?${query.toString()}`, { token: pinterestConfig(ctx.config).accessToken });
        const items = field(json, 'items');
        return {
          boards: (Array.isArray(items) ? items : []).map((b) => ({
            id: field(b, 'id'),
            name: field(b, 'name'),
            privacy: field(b, 'privacy'),
          })),
          bookmark: field(json, 'bookmark') ?? null,
        };
      },
    },
    sections: {
      description: "A board's sections (id, name), 100 a page.",
      input: z.object({
        board: z
          .string()
          .regex(/^\d{1,30}$/)
          .describe("The board's id."),
        bookmark: page,
      }),
      async run(ctx, data) {
        const { board, bookmark } = z.object({ board: z.string().regex(/^\d{1,30}$/), bookmark: page }).parse(data);
        const query = new URLSearchParams({ page_size: '100', ...(bookmark && { bookmark }) });
        const { json } = await pinterestCall(ctx, `/boards/${board}/sections?${query.toString()}`, {
          token: pinterestConfig(ctx.config).accessToken,
        });
        const items = field(json, 'items');
        return {
          sections: (Array.isArray(items) ? items : []).map((s) => ({ id: field(s, 'id'), name: field(s, 'name') })),
          bookmark: field(json, 'bookmark') ?? null,
        };
      },
    },
  },
  unavailable: (platformApps) => appUnavailable(platformApps, 'pinterest'),
  validate({ media, settings, part, platformApps }): P.MissingItem[] {
    if (part > 0) return [{ field: `value[${part}].content`, reason: NO_COMMENTS }];
    const missing: P.MissingItem[] = [];
    const videos = media.filter(isVideo);
    if (videos.length > 0 && media.length > 1)
      missing.push({ field: `value[${part}].image`, reason: `A pin is one image, 2 to ${IMAGES_MAX} images, or one video.` });
    else if (videos.length === 1) {
      const problem = lengthProblem(videos[0]!, VIDEO_SECONDS, 'Pinterest takes video pins');
      if (problem) missing.push({ field: `value[${part}].image[0]`, reason: problem });
    }
    if (videos.length === 0 && media.length > 0) {
      media.forEach((m, i) => {
        if (m.size > IMAGE_BYTES_MAX)
          missing.push({
            field: `value[${part}].image[${i}]`,
            reason: `Pinterest takes images of up to 20 MB; this one is ${m.size} bytes.`,
          });
      });
      const notPublic = baseUrlNotPublic(platformApps);
      if (notPublic) missing.push({ field: `value[${part}].image`, reason: notPublic });
    }
    if (videos.length > 0 && typeof settings.alt === 'string')
      missing.push({ field: 'settings.alt', reason: 'Pinterest takes alt text for image pins only; remove it for a video.' });
    return missing;
  },
  signIn,
  renewal: {
    due: (config, now) => expiresSoon(config.expiresAt, now, REFRESH_MARGIN_MS),
    async renew(ctx, now) {
      const config = pinterestConfig(ctx.config);
      let refreshExpiresAt: string | undefined;
      const renewed = await renewWithRefreshToken('Pinterest', config, async (refreshToken) => {
        const tokens = await tokenRequest(ctx, { grant_type: 'refresh_token', refresh_token: refreshToken }, now);
        refreshExpiresAt = tokens.refreshExpiresAt;
        return tokens;
      });
      return { ...renewed, ...(refreshExpiresAt && { refreshExpiresAt }) };
    },
  },
  metrics: pinterestMetrics,
  publish,
  async comment() {
    throw new ProviderError('rejected', NO_COMMENTS);
  },
};
