import type { z } from 'zod';
import type { OutboundClient } from '../net/outbound.ts';
import type { ProviderMetrics } from './metrics.ts';
import type { PlatformApps } from './platform-apps.ts';

/** Where a post or comment landed on the platform: its id (the post's release id) and URL. */
export type PublishedRef = {
  id: string;
  url?: string | undefined;
  /** Provider-specific facts later parts need (e.g. Bluesky's record `uri` and `cid`). */
  meta?: Record<string, unknown> | undefined;
};

/** A file to attach, already in the workspace's media library. */
export type PublishMedia = {
  id: string;
  url: string;
  name: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  /** A video's length in milliseconds, read when it was stored; null or absent when unknown. */
  durationMs?: number | null | undefined;
  /**
   * Reads the stored bytes (for platforms that take uploads rather than URLs): all of them, or
   * only `range` (inclusive, as in HTTP), so a large video is sent a part at a time and never
   * held whole in memory.
   */
  read(range?: { start: number; end: number }): Promise<Buffer>;
};

export type PublishInput = {
  /** Stable for this post; with `part` it makes writes idempotent where the platform allows. */
  postId: string;
  /** 0 for the post itself, 1… for the comments under it. */
  part: number;
  /** The content converted to this platform's text form. */
  text: string;
  /** The stored, sanitised HTML. */
  html: string;
  media: PublishMedia[];
  settings: Record<string, unknown>;
  /** For comments: the post (part 0) and the part just before this one. */
  root?: PublishedRef | undefined;
  parent?: PublishedRef | undefined;
  /**
   * When this part was due (ISO 8601): the post's publish time, or for a comment the previous
   * part's publication plus its delay. The same on every attempt, for platforms whose writes
   * carry a timestamp that must not change between retries.
   */
  dueAt?: string | undefined;
};

export type ProviderContext = {
  channel: { id: string; workspaceId: string; name: string; profile: string | null };
  /** The channel's configuration and credentials, decrypted. */
  config: Record<string, unknown>;
  /** The guarded client for every request to the platform. */
  outbound: OutboundClient;
  /** The operator's platform apps and Herald's public address. */
  platformApps: PlatformApps;
  signal?: AbortSignal | undefined;
  /**
   * Waits between polls of media the platform is processing, on the engine's clock (a test clock
   * moves instead of sleeping). Absent outside the engine: `waitFor` (oauth-api.ts) then sleeps.
   */
  wait?: ((ms: number) => Promise<void>) | undefined;
  /**
   * Renews the channel's credentials at once, for a platform that refused them before
   * `renewal.due` said they were due (a Lemmy instance that ended its session): through the same
   * claim as a due renewal (once per channel across processes), the result stored. Resolves to
   * the configuration now stored (another process's renewal when one was under way), which the
   * provider uses from then on. Absent for platforms without `renewal`, and outside Herald's
   * publisher, tools and collector (a provider called alone, in its own tests).
   */
  renewNow?: (() => Promise<Record<string, unknown>>) | undefined;
};

/** The account a channel's credentials belong to, read live from the platform. */
export type ConnectedAccount = {
  /** The platform's stable id for the account (or chat, or channel) posts go to. */
  internalId: string;
  name: string;
  handle: string | null;
  picture: string | null;
};

/** One thing a publish would lack right now, for GET /posts/:id/missing. */
export type MissingItem = { field: string; reason: string };

export type ProviderTool = {
  description: string;
  input: z.ZodType;
  run(ctx: ProviderContext, data: unknown): Promise<unknown>;
};

/**
 * How a platform call failed, which decides what the engine does next:
 * - `rate_limited`, `transient`: retried with backoff (`retryAfterMs` honoured).
 * - `auth`: the channel needs reconnecting; it is disabled and the owner notified.
 * - `rejected`: the platform refused the post, or Herald would not send it (e.g. the outbound
 *   policy refuses the channel's address); it goes to ERROR with `message`.
 * - `unknown_outcome`: the request may have been applied (e.g. a timeout after sending);
 *   retried only when the provider's writes are idempotent.
 */
export type ProviderFailureKind = 'rate_limited' | 'transient' | 'auth' | 'rejected' | 'unknown_outcome';

/**
 * Why a call to a platform got no answer, when it got none: the outbound policy refused the
 * address (`policy`), or the platform could not be reached or did not answer (`unreachable`);
 * `reason` says it in words ("the connection to 127.0.0.1:4000 was refused (nothing listens there)").
 */
export type NoAnswer = { kind: 'policy' | 'unreachable'; reason: string };

/** What `connectAccount` checks: the configuration, and whether Herald made its secret in this very call (the platform cannot know it yet). */
export type ConnectContext = Omit<ProviderContext, 'channel'> & { secretGenerated?: boolean };

/**
 * `fields` with the provider's generated secret added when the creator left it out (see
 * `Provider.generatedSecret`), and that secret, to show once; null when none was made.
 */
export function withGeneratedSecret(
  provider: Pick<Provider, 'generatedSecret'>,
  fields: Record<string, unknown>,
): { fields: Record<string, unknown>; secret: string | null } {
  const generated = provider.generatedSecret;
  if (!generated || (fields[generated.field] !== undefined && fields[generated.field] !== null)) return { fields, secret: null };
  const secret = generated.make();
  return { fields: { ...fields, [generated.field]: secret }, secret };
}

export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    readonly options: { retryAfterMs?: number | undefined; status?: number | undefined; noAnswer?: NoAnswer; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
  }
}

/**
 * A channel's configuration read with the platform's schema. An invalid one is a credentials
 * problem (`auth`: the channel must be connected again), worded "The <platform> channel's
 * configuration is invalid: <first issue>." or by `invalid`.
 */
export function readConfig<T>(schema: z.ZodType<T>, config: Record<string, unknown>, platform: string, invalid?: () => string): T {
  const parsed = schema.safeParse(config);
  if (!parsed.success)
    throw new ProviderError(
      'auth',
      invalid?.() ?? `The ${platform} channel's configuration is invalid: ${parsed.error.issues[0]?.message ?? 'unknown problem'}.`,
    );
  return parsed.data;
}

/** The settings' issues with the platform's schema, as missing items (`settings.<path>`). */
export function settingsIssues(schema: z.ZodType, settings: Record<string, unknown>): MissingItem[] {
  const parsed = schema.safeParse(settings);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ field: ['settings', ...issue.path.map(String)].join('.'), reason: issue.message }));
}

/** The settings as the platform's schema reads them, or none when it refuses them (a readiness check reports their issues apart). */
export function settingsOrNone<T extends object>(schema: z.ZodType<T>, settings: Record<string, unknown>): Partial<T> {
  const parsed = schema.safeParse(settings);
  return parsed.success ? parsed.data : {};
}

/** The settings read with the platform's schema; settings it refuses end the publish as `rejected` with the first issue, never as an unexpected error. */
export function readSettings<T>(schema: z.ZodType<T>, settings: Record<string, unknown>): T {
  const parsed = schema.safeParse(settings);
  if (parsed.success) return parsed.data;
  throw new ProviderError(
    'rejected',
    settingsIssues(schema, settings)
      .map((p) => `${p.field}: ${p.reason}`)
      .join(' '),
  );
}

/** A length in seconds as people read it: "2.5 s", "90 s", "15 min", "10 min 30 s". */
export function spokenLength(seconds: number): string {
  if (seconds < 60) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds - minutes * 60);
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
}

/**
 * Why a video's length (read by the media library when it was stored) is outside what the
 * platform takes, `[min, max]` seconds, e.g. "clip.mp4 lasts 1 s; Instagram takes reels of 3 s to
 * 15 min."; null when it is inside, or when the length is unknown (the platform then decides).
 */
export function lengthProblem(
  item: Pick<PublishMedia, 'name' | 'durationMs'>,
  [min, max]: readonly [number, number],
  takes: string,
): string | null {
  if (item.durationMs === null || item.durationMs === undefined) return null;
  const seconds = item.durationMs / 1000;
  if (seconds >= min && seconds <= max) return null;
  const range = min > 0 ? `of ${spokenLength(min)} to ${spokenLength(max)}` : `up to ${spokenLength(max)}`;
  return `${item.name} lasts ${spokenLength(seconds)}; ${takes} ${range}.`;
}

/**
 * What a platform takes of a video, by what the media library read when the file was stored
 * (width, height, length): readiness (`GET /posts/:id/missing` and the engine's last check)
 * applies it to every video, and `GET /integration-settings/:id` shows it. A video whose size or
 * length the library could not read is left to the platform.
 */
export type VideoRules = {
  /** Each side of the picture, in pixels: the smallest and largest the platform takes. */
  sidePixels?: readonly [number, number];
  /** The length, in seconds: the shortest and longest the platform takes. */
  seconds?: readonly [number, number];
};

/** Why a video breaks `rules` (the first problem found), in words naming the platform; null when it keeps them or they cannot be checked. */
export function videoRulesProblem(
  item: Pick<PublishMedia, 'name' | 'width' | 'height' | 'durationMs'>,
  rules: VideoRules,
  platform: string,
): string | null {
  const sides = rules.sidePixels;
  if (sides && item.width && item.height) {
    const [min, max] = sides;
    if (Math.min(item.width, item.height) < min || Math.max(item.width, item.height) > max)
      return `${item.name} is ${item.width}×${item.height} pixels; ${platform} takes videos of ${min} to ${max} pixels on each side.`;
  }
  return rules.seconds ? lengthProblem(item, rules.seconds, `${platform} takes videos`) : null;
}

/** Refuses a publish the provider's own checks find not ready (the engine checked readiness; the post may have changed since). */
export function refuseInvalid(
  provider: Pick<Provider, 'validate'>,
  ctx: Pick<ProviderContext, 'config' | 'platformApps'>,
  input: PublishInput,
): void {
  const problems = provider.validate({
    text: input.text,
    media: input.media,
    settings: input.settings,
    part: input.part,
    config: ctx.config,
    platformApps: ctx.platformApps,
  });
  if (problems.length > 0) throw new ProviderError('rejected', problems.map((p) => `${p.field}: ${p.reason}`).join(' '));
}

/** What `validate` is given: the part's text, media and settings, the channel's configuration, the operator's apps. */
export type ValidateInput = Parameters<Provider['validate']>[0];

/** OAuth client registrations Herald keeps per platform host (e.g. one Mastodon app per instance). */
export interface OAuthAppStore {
  get(provider: string, host: string, redirectUri: string): Promise<{ clientId: string; clientSecret: string } | null>;
  /** Stores a registration; when another process stored one first, that one is kept and returned. */
  put(
    provider: string,
    host: string,
    redirectUri: string,
    app: { clientId: string; clientSecret: string },
  ): Promise<{ clientId: string; clientSecret: string }>;
  /** Forgets a registration the platform no longer knows, so the next sign-in registers again. */
  remove(provider: string, host: string, redirectUri: string): Promise<void>;
}

export type SignInContext = {
  outbound: OutboundClient;
  platformApps: PlatformApps;
  apps: OAuthAppStore;
  /** Where the platform sends the person back (BASE_URL + the callback path). */
  redirectUri: string;
  signal?: AbortSignal | undefined;
};

/**
 * A browser sign-in (OAuth 2.0 authorization code). Herald keeps `pending` (sealed) with the
 * single-use state between `start` and `finish`; the platform calls back with `code` and `state`.
 */
export interface BrowserSignIn {
  /** What the connect request carries besides `provider` (e.g. Mastodon's `instance`). */
  readonly startSchema: z.ZodType;
  /** Registers Herald with the platform where needed and builds the URL the person opens. */
  start(
    ctx: SignInContext,
    input: { start: Record<string, unknown>; state: string },
  ): Promise<{ url: string; pending: Record<string, unknown> }>;
  /**
   * Exchanges the code for credentials: the channel configuration and whose account it is; or,
   * when the person must pick what to connect (e.g. one of the LinkedIn pages they administer),
   * the options to show and what to keep (sealed, single use) until they choose.
   */
  finish(ctx: SignInContext, input: { code: string; pending: Record<string, unknown> }): Promise<SignInResult | SignInChoice>;
  /** Completes a sign-in that asked the person to choose: `choice` is one of the options' ids. */
  choose?(ctx: SignInContext, input: { choice: string; pending: Record<string, unknown> }): Promise<SignInResult>;
}

export type SignInResult = {
  config: Record<string, unknown>;
  account: ConnectedAccount;
  /**
   * Post settings the person chose while connecting (Pinterest's default board): merged into the
   * channel's preferred settings, which apply where a post leaves a setting out.
   */
  preferredSettings?: Record<string, unknown>;
};
export type SignInChoice = { choose: { prompt: string; options: Array<{ id: string; label: string }>; pending: Record<string, unknown> } };

/** A platform Herald can publish to. One implementation per folder under src/providers/. */
export interface Provider {
  /** The platform id (`settings.__type`, the channel's `identifier`). */
  readonly identifier: string;
  readonly name: string;
  /** The text limit and how the platform counts it. */
  readonly textLimit: { max: number; unit: 'graphemes' | 'characters' | 'bytes' };
  /**
   * Optional: the limit for one channel and one post's settings, when it is narrower than
   * `textLimit` (an account's own allowance, an instance's configured limit). `validate` applies
   * the same limit; POST /posts/measure reports it.
   */
  textLimitFor?(input: { settings: Record<string, unknown>; config: Record<string, unknown>; part: number }): {
    max: number;
    unit: 'graphemes' | 'characters' | 'bytes';
  };
  /** Counts `text` the way the platform does. */
  countText(text: string): number;
  /** Turns stored HTML into the text the platform takes. */
  toText(html: string): string;
  /** The post settings (`settings`, besides `__type`). */
  readonly settingsSchema: z.ZodType;
  /** What the channel configuration (`admin channel create --config`) must hold. */
  readonly configSchema: z.ZodType;
  /**
   * The configuration fields that hold URLs Herald connects to; a channel is refused when one
   * points where the outbound policy never lets a request go.
   */
  readonly configUrls: readonly string[];
  readonly mediaRules: { maxItems: number; mimeTypes: readonly string[]; maxBytes: number; required: boolean; video?: VideoRules };
  /** Tools runnable through POST /integration-trigger/:id, by name. */
  readonly tools: Readonly<Record<string, ProviderTool>>;
  /** True when retrying a write cannot duplicate it (the platform deduplicates on a key Herald chooses). */
  readonly idempotentWrites: boolean;
  /** How a channel is connected, for people: which config fields, where to get them. */
  readonly connectHelp: string;
  /** Platform-specific checks beyond text length and media rules; empty when ready. */
  validate(input: {
    text: string;
    media: Array<Omit<PublishMedia, 'read'>>;
    settings: Record<string, unknown>;
    part: number;
    /** The channel's configuration (decrypted), for rules that depend on it. */
    config: Record<string, unknown>;
    platformApps: PlatformApps;
  }): MissingItem[];
  /**
   * Checks the configuration's credentials live against the platform and says whose they are.
   * Throws ProviderError: `auth` when the platform refuses them, `rejected` for other refusals.
   */
  connectAccount?(ctx: ConnectContext): Promise<ConnectedAccount>;
  /**
   * Optional: a secret Herald makes when the creator of a channel gives none (the webhook's
   * signing secret): the configuration field and how to make one. It is stored as a given one
   * is, and shown once, in the answer that created the channel.
   */
  readonly generatedSecret?: { field: string; make(): string };
  /**
   * Optional: the configuration to store once `connectAccount` accepted it, completed with what
   * the check learnt (e.g. a chat's numeric id, the server's own limits). Stored as given when absent.
   */
  completeConfig?(ctx: Omit<ProviderContext, 'channel'>, account: ConnectedAccount): Promise<Record<string, unknown>>;
  /**
   * Why channels of this platform cannot be connected on this server right now (e.g. the
   * operator has not registered its app), as a sentence saying what to set; null when they can.
   */
  unavailable?(platformApps: PlatformApps): string | null;
  /** Present on platforms people connect by signing in through the browser. */
  readonly signIn?: BrowserSignIn;
  /**
   * Present on platforms whose credentials expire and can be renewed. Herald checks `due` before
   * each publish; when it is true, Herald calls `renew` once at a time per channel across all its
   * processes (a claim on the channel in the database), stores the result sealed, and hands it to
   * the publishes of the channel that waited on it. A refusal throws ProviderError `auth`, which
   * disables the channel as needing reconnection.
   */
  readonly renewal?: {
    /** True when `config` must be renewed before use (e.g. its access token expires soon). No call. */
    due(config: Record<string, unknown>, now: Date): boolean;
    /** Renews the credentials in `ctx.config` with the platform; the configuration to store. */
    renew(ctx: ProviderContext, now: Date): Promise<Record<string, unknown>>;
  };
  /** Present on platforms whose API reports numbers for posts and accounts (analytics). */
  readonly metrics?: ProviderMetrics;
  /** Publishes the post itself (part 0). */
  publish(ctx: ProviderContext, input: PublishInput): Promise<PublishedRef>;
  /** Publishes a comment (part ≥ 1) under `input.parent`. */
  comment(ctx: ProviderContext, input: PublishInput): Promise<PublishedRef>;
}
