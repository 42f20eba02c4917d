/**
 * The platforms the connect form offers, and what each asks for. Browser sign-in platforms need
 * only the platform (Mastodon also its server); the others take the fields the README lists for
 * their configuration. The API checks everything again and says what is wrong.
 */
export type PlatformField = { name: string; label: string; secret?: boolean; optional?: boolean; placeholder?: string };
export type Platform = { id: string; label: string; signIn: boolean; fields: PlatformField[] };

const token = (name: string, label: string): PlatformField => ({ name, label, secret: true });

export const PLATFORMS: Platform[] = [
  {
    id: 'bluesky',
    label: 'Bluesky',
    signIn: false,
    fields: [{ name: 'identifier', label: 'Handle or e-mail' }, token('appPassword', 'App password')],
  },
  {
    id: 'mastodon',
    label: 'Mastodon',
    signIn: true,
    fields: [{ name: 'instance', label: 'Server', placeholder: 'https://mastodon.social' }],
  },
  { id: 'telegram', label: 'Telegram', signIn: false, fields: [token('botToken', 'Bot token'), { name: 'chatId', label: 'Chat ID' }] },
  { id: 'slack', label: 'Slack', signIn: false, fields: [token('botToken', 'Bot token'), { name: 'channel', label: 'Channel ID' }] },
  { id: 'discord', label: 'Discord', signIn: false, fields: [] },
  {
    id: 'lemmy',
    label: 'Lemmy',
    signIn: false,
    fields: [
      { name: 'instance', label: 'Server' },
      { name: 'username', label: 'User name' },
      token('password', 'Password'),
      { name: 'totp', label: 'Two-factor code', optional: true },
    ],
  },
  {
    id: 'nostr',
    label: 'Nostr',
    signIn: false,
    fields: [token('secretKey', 'Secret key (nsec)'), { name: 'relays', label: 'Relays (comma separated)' }],
  },
  {
    id: 'wordpress',
    label: 'WordPress',
    signIn: false,
    fields: [
      { name: 'site', label: 'Site address' },
      { name: 'username', label: 'User name' },
      token('applicationPassword', 'Application password'),
    ],
  },
  { id: 'devto', label: 'DEV', signIn: false, fields: [token('apiKey', 'API key')] },
  {
    id: 'webhook',
    label: 'Webhook',
    signIn: false,
    fields: [
      { name: 'url', label: 'Receiver URL', placeholder: 'https://…' },
      { ...token('secret', 'Signing secret'), optional: true },
    ],
  },
  { id: 'x', label: 'X', signIn: true, fields: [] },
  { id: 'linkedin', label: 'LinkedIn', signIn: true, fields: [] },
  { id: 'linkedin-page', label: 'LinkedIn page', signIn: true, fields: [] },
  { id: 'threads', label: 'Threads', signIn: true, fields: [] },
  { id: 'facebook', label: 'Facebook page', signIn: true, fields: [] },
  { id: 'instagram', label: 'Instagram (through Facebook)', signIn: true, fields: [] },
  { id: 'instagram-standalone', label: 'Instagram', signIn: true, fields: [] },
  { id: 'youtube', label: 'YouTube', signIn: true, fields: [] },
  { id: 'tiktok', label: 'TikTok', signIn: true, fields: [] },
  { id: 'pinterest', label: 'Pinterest', signIn: true, fields: [] },
  { id: 'reddit', label: 'Reddit', signIn: true, fields: [] },
  { id: 'google-business', label: 'Google Business Profile', signIn: true, fields: [] },
];

/** The field values as the API takes them (relays as a list; empty optional fields left out). */
export function connectBody(platform: Platform, values: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of platform.fields) {
    const value = (values[field.name] ?? '').trim();
    if (!value && field.optional) continue;
    body[field.name] = field.name === 'relays' ? value.split(/[\s,]+/).filter(Boolean) : value;
  }
  return body;
}

export function platformLabel(id: string): string {
  return PLATFORMS.find((p) => p.id === id)?.label ?? id;
}
