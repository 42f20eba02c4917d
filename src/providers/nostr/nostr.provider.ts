import { createRequire } from 'node:module';
import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { noAnswerReason } from '../../net/outbound.ts';
import { isLoopbackHost } from '../config-urls.ts';
import { ProviderError, readConfig, refuseInvalid, settingsIssues } from '../provider.ts';
import type * as P from '../provider.ts';
import { nostrMetrics } from './nostr.metrics.ts';
import { relayExchange } from './nostr.relay.ts';

const require = createRequire(import.meta.url);
type Pure = typeof import('nostr-tools/pure');
type Nip19 = typeof import('nostr-tools/nip19');
type NostrEvent = import('nostr-tools/pure').Event;
/** The signing library (noble curves) is loaded with the first Nostr channel, not at start-up. */
let tools: { pure: Pure; nip19: Nip19 } | undefined;
export const nostr = () => (tools ??= { pure: require('nostr-tools/pure') as Pure, nip19: require('nostr-tools/nip19') as Nip19 });

/** No limit in the protocol; relays commonly refuse events past 64 KiB, so the text stays well under. */
const TEXT_LIMIT = 32_000;
const MAX_MEDIA = 10;
const MEDIA_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/avif',
  'video/mp4',
  'video/webm',
  'video/quicktime',
] as const;

/** The secret key as 32 bytes, from nsec1… or 64 hex digits; null when it is neither. */
function secretKeyBytes(value: string): Uint8Array | null {
  const text = value.trim();
  if (/^[0-9a-f]{64}$/i.test(text)) return Uint8Array.from(Buffer.from(text, 'hex'));
  if (!text.startsWith('nsec1')) return null;
  try {
    const decoded = nostr().nip19.decode(text);
    return decoded.type === 'nsec' ? decoded.data : null;
  } catch {
    return null;
  }
}

const relayUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'wss:' || (url.protocol === 'ws:' && isLoopbackHost(url.hostname));
    } catch {
      return false;
    }
  }, 'a relay URL: wss://… (plain ws:// only for a relay on this machine)');

export const nostrConfigSchema = z.object({
  secretKey: z
    .string()
    .refine((value) => secretKeyBytes(value) !== null, 'a Nostr secret key: nsec1… or 64 hexadecimal digits')
    .meta({ title: 'Secret key', writeOnly: true })
    .describe("The account's secret key (nsec1… or hex). Herald signs notes with it; it never leaves the server."),
  relays: z.array(relayUrl).min(1).max(10).meta({ title: 'Relays' }).describe('The relays notes are published to (wss://…), 1 to 10.'),
});
type NostrConfig = z.infer<typeof nostrConfigSchema>;

export const nostrSettingsSchema = z.object({
  alt: z
    .record(z.string(), z.string().max(2000))
    .optional()
    .describe('Alt text for media (in the imeta tag), keyed by the media id or URL.'),
  hashtags: z
    .array(z.string().regex(/^[^\s#]{1,64}$/, 'a hashtag without # or spaces'))
    .max(10)
    .optional()
    .describe('Topics as `t` tags (without #), in addition to the hashtags in the text.'),
  contentWarning: z.string().max(200).optional().describe('A content warning (NIP-36); clients hide the note behind it.'),
});
type NostrSettings = z.infer<typeof nostrSettingsSchema>;

export function parseConfig(ctx: Pick<P.ProviderContext, 'config'>): NostrConfig & { key: Uint8Array; pubkey: string } {
  const config = readConfig(nostrConfigSchema, ctx.config, 'Nostr');
  const key = secretKeyBytes(config.secretKey)!;
  return { ...config, key, pubkey: nostr().pure.getPublicKey(key) };
}

const countText = (text: string) => [...text].length;

/** The event's tags: NIP-10 marked `e` tags for replies, NIP-92 `imeta` per media URL, topics. */
function tagsFor(input: P.PublishInput, settings: NostrSettings, pubkey: string, relay: string): string[][] {
  const tags: string[][] = [];
  if (input.part > 0) {
    const parent = input.parent;
    if (!parent) throw new ProviderError('rejected', 'A Nostr reply needs the note it answers (input.parent).');
    const root = input.root ?? parent;
    tags.push(['e', root.id, relay, 'root', pubkey]);
    if (parent.id !== root.id) tags.push(['e', parent.id, relay, 'reply', pubkey]);
    tags.push(['p', pubkey]);
  }
  for (const item of input.media) {
    const alt = settings.alt?.[item.id] ?? settings.alt?.[item.url];
    tags.push([
      'imeta',
      `url ${item.url}`,
      `m ${item.mimeType}`,
      ...(item.width && item.height ? [`dim ${item.width}x${item.height}`] : []),
      ...(alt ? [`alt ${alt}`] : []),
    ]);
  }
  const topics = new Set(
    [...(settings.hashtags ?? []), ...[...input.text.matchAll(/(?:^|\s)#([\p{L}\p{N}_]{1,64})/gu)].map((m) => m[1]!)].map((t) =>
      t.toLowerCase(),
    ),
  );
  for (const topic of topics) tags.push(['t', topic]);
  if (settings.contentWarning !== undefined) tags.push(['content-warning', settings.contentWarning]);
  return tags;
}

/** The text with each media URL on a line of its own after it, as Nostr clients show media. */
function contentFor(input: P.PublishInput): string {
  const urls = input.media.map((m) => m.url).filter((url) => !input.text.includes(url));
  return [input.text.trim(), ...urls].filter(Boolean).join('\n\n');
}

type RelayVerdict = { relay: string; accepted: boolean; message: string };

async function sendToRelay(ctx: P.ProviderContext, relay: string, event: NostrEvent): Promise<RelayVerdict> {
  try {
    return await relayExchange<RelayVerdict>(
      ctx,
      relay,
      [['EVENT', event]],
      (message) => {
        if (message[0] !== 'OK' || message[1] !== event.id) return undefined;
        const text = typeof message[3] === 'string' ? message[3] : '';
        // A relay that already has this event says "duplicate:": an earlier attempt reached it.
        return { relay, accepted: message[2] === true || text.startsWith('duplicate:'), message: text };
      },
      () => ({ relay, accepted: false, message: 'no answer in time' }),
    );
  } catch (error) {
    if ((error as { code?: string }).code === 'outbound_refused')
      return { relay, accepted: false, message: `not connected (outbound policy): ${(error as Error).message}` };
    return { relay, accepted: false, message: `not reached: ${(error as Error).message}` };
  }
}

/**
 * Signs the note and sends it to every relay. The event id is the hash of its content, tags,
 * author and `created_at` (the part's due time, the same on every attempt), so a retry is the
 * same event and relays that already have it answer "duplicate". Succeeds when at least one
 * relay accepts; the ones that refused are named in the result's meta.
 */
async function send(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = parseConfig(ctx);
  refuseInvalid(nostrProvider, ctx, input);
  const settings = nostrSettingsSchema.parse(input.settings);
  const createdAt = Math.floor(Date.parse(input.dueAt ?? new Date().toISOString()) / 1000);
  const event = nostr().pure.finalizeEvent(
    { kind: 1, created_at: createdAt, content: contentFor(input), tags: tagsFor(input, settings, config.pubkey, config.relays[0]!) },
    config.key,
  );
  const verdicts = await Promise.all(config.relays.map((relay) => sendToRelay(ctx, relay, event)));
  const accepted = verdicts.filter((v) => v.accepted).map((v) => v.relay);
  const refused = verdicts.filter((v) => !v.accepted).map((v) => ({ relay: v.relay, reason: v.message || 'refused' }));
  if (accepted.length > 0) {
    const nevent = nostr().nip19.neventEncode({ id: event.id, relays: accepted.slice(0, 3), author: config.pubkey });
    return { id: event.id, url: `https://njump.me/${nevent}`, meta: { pubkey: config.pubkey, createdAt, accepted, refused } };
  }
  const reasons = refused.map((r) => `${r.relay}: ${r.reason}`).join('; ');
  if (refused.some((r) => r.reason.startsWith('rate-limited:')))
    throw new ProviderError('rate_limited', `No relay accepted the note (${reasons}).`);
  // A refusal with a reason is the relay's verdict on this note; no answer at all is worth a retry.
  if (verdicts.some((v) => !v.accepted && v.message && !v.message.startsWith('not reached') && v.message !== 'no answer in time')) {
    throw new ProviderError('rejected', `No relay accepted the note: ${reasons}.`);
  }
  throw new ProviderError('transient', `No relay could be reached (${reasons}).`);
}

/**
 * The newest kind-0 profile of `pubkey` any relay has, verified, or null. When no relay could be
 * read at all, that is the failure: every relay refused by the outbound policy, or unreachable.
 */
async function readProfile(
  ctx: Omit<P.ProviderContext, 'channel'>,
  relays: string[],
  pubkey: string,
): Promise<Record<string, unknown> | null> {
  const failures: Array<{ relay: string; error: unknown }> = [];
  const found = await Promise.all(
    relays.map(async (relay) => {
      const events: NostrEvent[] = [];
      try {
        await relayExchange(
          ctx,
          relay,
          [['REQ', 'herald-profile', { kinds: [0], authors: [pubkey], limit: 1 }]],
          (message) => {
            if (message[0] === 'EVENT' && message[1] === 'herald-profile') events.push(message[2] as NostrEvent);
            return message[0] === 'EOSE' || message[0] === 'CLOSED' ? true : undefined;
          },
          () => true,
          5_000,
        );
      } catch (error) {
        // A relay that cannot be read just has no profile to offer, while another one can be read.
        failures.push({ relay, error });
      }
      return events;
    }),
  );
  if (failures.length === relays.length) {
    const reason = failures.map((f) => `${f.relay}: ${noAnswerReason(f.error)}`).join('; ');
    const policy = failures.every((f) => (f.error as { code?: string }).code === 'outbound_refused');
    throw new ProviderError(policy ? 'rejected' : 'transient', `No relay could be read (${reason}).`, {
      noAnswer: { kind: policy ? 'policy' : 'unreachable', reason },
    });
  }
  const newest = found
    .flat()
    .filter((e) => e && e.kind === 0 && e.pubkey === pubkey && nostr().pure.verifyEvent(e))
    .sort((a, b) => b.created_at - a.created_at)[0];
  if (!newest) return null;
  try {
    const profile = JSON.parse(newest.content) as unknown;
    return profile && typeof profile === 'object' ? (profile as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function connectAccount(ctx: Omit<P.ProviderContext, 'channel'>): Promise<P.ConnectedAccount> {
  const config = parseConfig(ctx);
  const npub = nostr().nip19.npubEncode(config.pubkey);
  const profile = await readProfile(ctx, config.relays, config.pubkey);
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim().slice(0, 200) : null);
  const picture = text(profile?.picture);
  return {
    internalId: config.pubkey,
    name: text(profile?.display_name) ?? text(profile?.name) ?? npub,
    handle: text(profile?.nip05) ?? npub,
    picture: picture && /^https?:\/\//.test(picture) ? picture : null,
  };
}

/** Signed kind-1 notes sent to the channel's relays. */
export const nostrProvider: P.Provider = {
  identifier: 'nostr',
  name: 'Nostr',
  textLimit: { max: TEXT_LIMIT, unit: 'characters' },
  countText,
  toText: htmlToPlainText,
  settingsSchema: nostrSettingsSchema,
  configSchema: nostrConfigSchema,
  // Relay URLs are ws(s): each is checked against the outbound policy when it is connected.
  configUrls: [],
  mediaRules: { maxItems: MAX_MEDIA, mimeTypes: MEDIA_TYPES, maxBytes: 100 * 1024 * 1024, required: false },
  // The event id is the hash of the signed content and its created_at is the part's due time.
  idempotentWrites: true,
  connectHelp:
    'Use the secret key of the Nostr account (nsec1… from your client\'s key export, or 64 hex digits) and the relays to publish to: config `{"secretKey":"nsec1…","relays":["wss://relay.damus.io","wss://nos.lol"]}`. Media are linked by their Herald URL (with imeta tags), so BASE_URL must be reachable from the internet for clients to show them.',
  tools: {},
  validate({ text, media, settings, part }): P.MissingItem[] {
    const at = `value[${part}]`;
    const missing: P.MissingItem[] = [];
    const length = countText(text);
    if (length > TEXT_LIMIT)
      missing.push({
        field: `${at}.content`,
        reason: `The text is ${length} characters long; Herald sends Nostr notes up to ${TEXT_LIMIT}.`,
      });
    if (text.trim() === '' && media.length === 0)
      missing.push({ field: `${at}.content`, reason: 'A Nostr note needs text or at least one media file.' });
    if (media.length > MAX_MEDIA)
      missing.push({ field: `${at}.image`, reason: `${media.length} files; Herald links at most ${MAX_MEDIA} per note.` });
    media.forEach((item, i) => {
      if (!(MEDIA_TYPES as readonly string[]).includes(item.mimeType))
        missing.push({
          field: `${at}.image[${i}]`,
          reason: `${item.name} is ${item.mimeType}; Nostr clients show images and MP4 or WebM videos.`,
        });
    });
    missing.push(...settingsIssues(nostrSettingsSchema, settings));
    return missing;
  },
  connectAccount,
  metrics: nostrMetrics,
  publish: send,
  comment: send,
};
