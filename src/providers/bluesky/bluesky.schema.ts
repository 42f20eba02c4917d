import { atproto } from './atproto.ts';
import * as z from 'zod';
import { isHttpsOrLoopback } from '../config-urls.ts';

const HANDLE = /^@?([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
const DID = /^did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]$/;
// What Bluesky (and the reference PDS) hand out: four groups of four, e.g. "abcd-2efg-hij3-klmn".
const APP_PASSWORD = /^[a-zA-Z0-9]{4}-[a-zA-Z0-9]{4}-[a-zA-Z0-9]{4}-[a-zA-Z0-9]{4}$/;

export const blueskyConfigSchema = z.object({
  service: z
    .url({ protocol: /^https?$/ })
    .refine(isHttpsOrLoopback, 'an https URL (plain http only for a PDS on this machine)')
    .default('https://bsky.social')
    .meta({ title: 'Server (PDS)' })
    .describe("The account's PDS or entryway: https://bsky.social for accounts created on Bluesky, otherwise your PDS's URL."),
  identifier: z
    .string()
    .trim()
    .refine((value) => HANDLE.test(value) || DID.test(value), 'a handle (you.bsky.social) or a DID (did:plc:…)')
    .meta({ title: 'Handle or DID' })
    .describe("The account's handle (e.g. `you.bsky.social`) or DID."),
  appPassword: z
    .string()
    .trim()
    .regex(
      APP_PASSWORD,
      'an app password (xxxx-xxxx-xxxx-xxxx) from Settings → Privacy and security → App passwords, not the account password',
    )
    .meta({ title: 'App password', writeOnly: true })
    .describe('An app password (Settings → Privacy and security → App passwords); never the account password.'),
});

export type BlueskyConfig = z.infer<typeof blueskyConfigSchema>;

export const blueskySettingsSchema = z.object({
  langs: z
    .array(z.string().refine((value) => atproto().parseLanguage(value) !== null, 'a BCP-47 language tag such as `en` or `pt-BR`'))
    .max(3)
    .optional()
    .describe('Languages of the text (BCP-47, at most 3), used by Bluesky for feeds and translation, e.g. `["en"]`.'),
  alt: z
    .record(z.string(), z.string().max(2000))
    .optional()
    .describe('Alt text for images, keyed by the media id (or its URL): `{"<media id>": "A red kite over a field"}`.'),
  contentWarning: z
    .enum(['sexual', 'nudity', 'porn', 'graphic-media'])
    .optional()
    .describe('A self-label for adult or graphic images; Bluesky blurs them for people who asked it to.'),
});

export type BlueskySettings = z.infer<typeof blueskySettingsSchema>;

export const resolveHandleInput = z.object({
  handle: z
    .string()
    .trim()
    .regex(HANDLE, 'a handle such as `someone.bsky.social`')
    .describe('A Bluesky handle, with or without the leading @.'),
});

export const searchMentionsInput = z.object({
  q: z.string().trim().min(1).max(100).describe('The start of a handle or display name.'),
  limit: z.number().int().min(1).max(25).default(8).describe('At most this many accounts (1–25).'),
});

/** A handle as typed in a post or a form: without the @, lower case. */
export function normalizeHandle(handle: string): string {
  return handle.trim().replace(/^@/, '').toLowerCase();
}
