import * as z from 'zod';
import type { PlatformApps } from '../providers/platform-apps.ts';
import { videoRulesProblem, type MissingItem, type Provider, type PublishMedia } from '../providers/provider.ts';
import type { DisabledReason } from '../channels/channels.table.ts';

export type ReadinessInput = {
  provider: Provider;
  channel: { disabled: boolean; disabledReason: DisabledReason | null };
  config: Record<string, unknown>;
  platformApps: PlatformApps;
  settings: Record<string, unknown>;
  /** `text`: the content as the provider's text, when the caller has converted it already (a publish sends it). */
  parts: Array<{ idx: number; content: string; images: Array<{ id?: string | undefined; path: string }>; text?: string }>;
  /** The library files the parts name, by path; a path missing here was deleted or never existed. */
  media: ReadonlyMap<string, Omit<PublishMedia, 'read'>>;
};

/**
 * The text `provider` receives for stored HTML (`text` when the caller converted it already) and
 * its length as the platform counts it: what the readiness check counts, a publish sends, and
 * POST /posts/measure answers.
 */
export function measureText(provider: Provider, html: string, text = provider.toText(html)): { text: string; length: number } {
  return { text, length: provider.countText(text) };
}

/** The text limit of one channel for one part with these settings: the provider's narrower one when it has one. */
export function textLimitOf(
  provider: Provider,
  input: { settings: Record<string, unknown>; config: Record<string, unknown>; part: number },
): Provider['textLimit'] {
  return provider.textLimitFor?.({ ...input, settings: settingsWithoutType(input.settings) }) ?? provider.textLimit;
}

function settingsWithoutType(settings: Record<string, unknown>): Record<string, unknown> {
  const { __type: _type, ...rest } = settings;
  return rest;
}

/**
 * What a publish would lack right now: a disabled channel, required settings, media that is
 * gone or breaks the platform's rules, empty or over-long text, and the provider's own checks.
 * Empty when ready. The same check runs for GET /posts/:id/missing and before publishing.
 */
export function checkReadiness(input: ReadinessInput): MissingItem[] {
  const { provider } = input;
  const missing: MissingItem[] = [];
  if (input.channel.disabled) {
    missing.push({
      field: 'integration',
      reason:
        input.channel.disabledReason === 'needs_reconnect'
          ? 'The channel needs reconnecting before it can publish.'
          : 'The channel is disabled.',
    });
  }
  const settings = settingsWithoutType(input.settings);
  const parsed = provider.settingsSchema.safeParse(settings);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      missing.push({ field: ['settings', ...issue.path.map(String)].join('.'), reason: issue.message });
    }
  }
  for (const part of input.parts) {
    const where = `value[${part.idx}]`;
    const { text, length } = measureText(provider, part.content, part.text);
    const media: Array<Omit<PublishMedia, 'read'>> = [];
    part.images.forEach((image, i) => {
      const found = input.media.get(image.path);
      if (!found) missing.push({ field: `${where}.image[${i}]`, reason: 'This file is no longer in the media library.' });
      else media.push(found);
    });
    if (text.trim() === '' && part.images.length === 0)
      missing.push({ field: `${where}.content`, reason: 'There is no text and no media to publish.' });
    if (length > provider.textLimit.max) {
      missing.push({
        field: `${where}.content`,
        reason: `The text is ${length} ${provider.textLimit.unit} long; ${provider.name} allows ${provider.textLimit.max}.`,
      });
    }
    const rules = provider.mediaRules;
    if (media.length > rules.maxItems)
      missing.push({
        field: `${where}.image`,
        reason: `${provider.name} takes at most ${rules.maxItems} files per post; there are ${media.length}.`,
      });
    if (part.idx === 0 && rules.required && part.images.length === 0)
      missing.push({ field: `${where}.image`, reason: `${provider.name} needs at least one image or video.` });
    media.forEach((m, i) => {
      if (!rules.mimeTypes.includes(m.mimeType))
        missing.push({ field: `${where}.image[${i}]`, reason: `${provider.name} does not take ${m.mimeType} files.` });
      else if (m.size > rules.maxBytes)
        missing.push({
          field: `${where}.image[${i}]`,
          reason: `The file is ${m.size} bytes; ${provider.name} takes at most ${rules.maxBytes}.`,
        });
      else if (rules.video && m.mimeType.startsWith('video/')) {
        const problem = videoRulesProblem(m, rules.video, provider.name);
        if (problem) missing.push({ field: `${where}.image[${i}]`, reason: problem });
      }
    });
    // The provider's own checks may restate a generic one in its words: one reason per field is enough.
    for (const item of provider.validate({
      text,
      media,
      settings,
      part: part.idx,
      config: input.config,
      platformApps: input.platformApps,
    })) {
      if (!missing.some((m) => m.field === item.field)) missing.push(item);
    }
  }
  return missing;
}

/** Each provider's settings schema with every field optional, built once (building one per post was a bulk import's cost). */
const partials = new WeakMap<Provider, z.ZodType>();
export function partialSettings(provider: Provider): z.ZodType {
  let partial = partials.get(provider);
  if (!partial) {
    const schema = provider.settingsSchema;
    partial = schema instanceof z.ZodObject ? schema.partial() : schema;
    partials.set(provider, partial);
  }
  return partial;
}

/** Checks only the types of the settings given at creation; what is missing is reported later. */
export function checkSettingsTypes(provider: Provider, settings: Record<string, unknown>): string[] {
  const parsed = partialSettings(provider).safeParse(settingsWithoutType(settings));
  return parsed.success ? [] : parsed.error.issues.map((i) => `${['settings', ...i.path.map(String)].join('.')}: ${i.message}`);
}
