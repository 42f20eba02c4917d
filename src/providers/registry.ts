import { NotFoundError } from '../errors.ts';
import type { Provider } from './provider.ts';
import { blueskyProvider } from './bluesky/bluesky.provider.ts';
import { devtoProvider } from './devto/devto.provider.ts';
import { discordProvider } from './discord/discord.provider.ts';
import { facebookProvider } from './facebook/facebook.provider.ts';
import { instagramProvider, instagramStandaloneProvider } from './instagram/instagram.provider.ts';
import { googleBusinessProvider } from './google-business/google-business.provider.ts';
import { mastodonProvider } from './mastodon/mastodon.provider.ts';
import { nostrProvider } from './nostr/nostr.provider.ts';
import { pinterestProvider } from './pinterest/pinterest.provider.ts';
import { slackProvider } from './slack/slack.provider.ts';
import { telegramProvider } from './telegram/telegram.provider.ts';
import { linkedinPageProvider, linkedinProvider } from './linkedin/linkedin.provider.ts';
import { lemmyProvider } from './lemmy/lemmy.provider.ts';
import { redditProvider } from './reddit/reddit.provider.ts';
import { threadsProvider } from './threads/threads.provider.ts';
import { tiktokProvider } from './tiktok/tiktok.provider.ts';
import { webhookProvider } from './webhook/webhook.provider.ts';
import { wordpressProvider } from './wordpress/wordpress.provider.ts';
import { xProvider } from './x/x.provider.ts';
import { youtubeProvider } from './youtube/youtube.provider.ts';

/** Every platform Herald can publish to, by identifier (`settings.__type`, the channel's `identifier`). */
const PROVIDERS: ReadonlyMap<string, Provider> = new Map(
  [
    webhookProvider,
    blueskyProvider,
    mastodonProvider,
    telegramProvider,
    discordProvider,
    slackProvider,
    nostrProvider,
    xProvider,
    linkedinProvider,
    linkedinPageProvider,
    threadsProvider,
    tiktokProvider,
    pinterestProvider,
    redditProvider,
    lemmyProvider,
    facebookProvider,
    instagramProvider,
    instagramStandaloneProvider,
    youtubeProvider,
    googleBusinessProvider,
    wordpressProvider,
    devtoProvider,
  ].map((p) => [p.identifier, p]),
);

export const PROVIDER_IDENTIFIERS: readonly string[] = [...PROVIDERS.keys()];

export function isProviderIdentifier(value: string): boolean {
  return PROVIDERS.has(value);
}

export function getProvider(identifier: string): Provider {
  const provider = PROVIDERS.get(identifier);
  if (!provider) throw new NotFoundError(`No provider "${identifier}".`);
  return provider;
}
