import { needingPermission, readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { field, oauthPlatform } from '../oauth-api.ts';
import { callPlatform, type PlatformAnswer } from '../platform-call.ts';
import { platformApp } from '../platform-apps.ts';
import type { ProviderContext } from '../provider.ts';
import { readTiktokError, TIKTOK, tiktokConfig } from './tiktok.client.ts';

const VIDEO_METRICS = { view_count: 'views', like_count: 'likes', comment_count: 'replies', share_count: 'shares' } as const;
const ACCOUNT_METRICS = { follower_count: 'followers', following_count: 'following', video_count: 'posts' } as const;
/** TikTok's video query takes at most 20 ids. */
const BATCH = 20;

/** A scope the channel was connected without is a permission refusal (403) for the numbers, not dead credentials. */
function readStatsError(answer: PlatformAnswer) {
  const reading = readTiktokError(answer);
  if (field(answer.json, 'error', 'code') === 'scope_not_authorized') return { ...reading, kind: undefined, status: 403 };
  return reading;
}

const STATS = { ...oauthPlatform('TikTok', readStatsError), succeeded: TIKTOK.succeeded };

function url(ctx: Pick<ProviderContext, 'platformApps'>, path: string): string {
  return `${platformApp(ctx.platformApps, 'tiktok').apiBase}${path}`;
}

/**
 * TikTok's numbers: a video's views, likes, comments and shares (`POST /v2/video/query/`, up to
 * 20 ids, scope `video.list`), and the account's followers, following and videos
 * (`GET /v2/user/info/`, scope `user.info.stats`). Ids are read from the answer's text: they are
 * 64-bit numbers JSON would round. A post whose release id is still TikTok's publish id (not yet
 * public) is not asked for.
 */
export const tiktokMetrics: ProviderMetrics = {
  reports: { post: ['views', 'likes', 'replies', 'shares'], account: ['followers', 'following', 'posts'] },
  batchSize: BATCH,
  async posts(ctx, refs) {
    const { accessToken } = tiktokConfig(ctx.config);
    const ids = refs.map((r) => r.id).filter((id) => /^\d{1,30}$/.test(id));
    const found = new Map<string, MetricsReading>();
    if (ids.length === 0) return found;
    const call = callPlatform(ctx, STATS, url(ctx, `/v2/video/query/?fields=id,${Object.keys(VIDEO_METRICS).join(',')}`), {
      token: accessToken,
      json: { filters: { video_ids: ids } },
    });
    const answer = await needingPermission(call, 'TikTok', 'video.list');
    const videos = field(answer.json, 'data', 'videos');
    // Each video object in order, with its id as written (not rounded).
    const written = [...answer.text.matchAll(/"id"\s*:\s*"?(\d+)"?/g)].map((m) => m[1]!);
    (Array.isArray(videos) ? videos : []).forEach((video, i) => {
      const id = typeof field(video, 'id') === 'string' ? String(field(video, 'id')) : written[i];
      if (id && ids.includes(id)) found.set(id, readMetrics(video as Record<string, unknown>, VIDEO_METRICS));
    });
    return found;
  },
  async account(ctx) {
    const { accessToken } = tiktokConfig(ctx.config);
    const call = callPlatform(ctx, STATS, url(ctx, `/v2/user/info/?fields=open_id,${Object.keys(ACCOUNT_METRICS).join(',')}`), {
      token: accessToken,
    });
    const answer = await needingPermission(call, 'TikTok', 'user.info.stats');
    return readMetrics((field(answer.json, 'data', 'user') ?? {}) as Record<string, unknown>, ACCOUNT_METRICS);
  },
};
