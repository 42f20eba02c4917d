import { needingPermission, readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { field } from '../oauth-api.ts';
import { ProviderError, type ProviderContext, type PublishedRef } from '../provider.ts';
import { api, linkedinConfig } from './linkedin.provider.ts';

/** Posts named in one organizationalEntityShareStatistics call (Herald's bound: the List() parameters go in the URL). */
const PAGE_BATCH = 20;
const PAGE_FIELDS = {
  impressionCount: 'impressions',
  uniqueImpressionsCount: 'reach',
  clickCount: 'clicks',
  likeCount: 'likes',
  commentCount: 'replies',
  shareCount: 'reposts',
} as const;
/** memberCreatorPostAnalytics' query types: one a call. */
const MEMBER_FIELDS = {
  IMPRESSION: 'impressions',
  MEMBERS_REACHED: 'reach',
  REACTION: 'likes',
  COMMENT: 'replies',
  RESHARE: 'reposts',
} as const;

/** A post's URN as the Posts API gave it: `urn:li:share:…` or `urn:li:ugcPost:…`; null for anything else. */
function postKind(urn: string): 'share' | 'ugcPost' | null {
  const kind = /^urn:li:(share|ugcPost):\d+$/.exec(urn)?.[1];
  return kind === 'share' || kind === 'ugcPost' ? kind : null;
}

/** One GET of LinkedIn's versioned API; a 403 (a scope or admin right the token lacks) refuses the reading only. */
async function read(ctx: ProviderContext, path: string, permission: string): Promise<unknown> {
  const { accessToken } = linkedinConfig(ctx.config);
  return (await needingPermission(api(ctx, path, { token: accessToken }), 'LinkedIn', permission)).json;
}

/**
 * A member's posts: impressions, members reached, reactions, comments and reshares from
 * memberCreatorPostAnalytics (one query type a call, one post at a time), for tokens granted
 * `r_member_postAnalytics`. LinkedIn documents no follower count for members: no account numbers.
 */
export const linkedinMemberMetrics: ProviderMetrics = {
  reports: { post: ['impressions', 'reach', 'likes', 'replies', 'reposts'], account: [] },
  batchSize: 1,
  async posts(ctx, refs) {
    const found = new Map<string, MetricsReading>();
    for (const ref of refs) {
      const kind = postKind(ref.id);
      if (!kind) continue;
      const counts: Record<string, unknown> = {};
      for (const type of Object.keys(MEMBER_FIELDS)) {
        const json = await read(
          ctx,
          `/rest/memberCreatorPostAnalytics?q=entity&entity=(${kind}:${encodeURIComponent(ref.id)})&queryType=${type}&aggregation=TOTAL`,
          'r_member_postAnalytics',
        );
        counts[type] = field(json, 'elements', '0', 'count');
      }
      const reading = readMetrics(counts, MEMBER_FIELDS);
      // No numbers at all: LinkedIn no longer has the post (deleted).
      if (Object.keys(reading.raw).length > 0) found.set(ref.id, reading);
    }
    return found;
  },
  account: () => Promise.resolve({ metrics: {}, raw: {} }),
};

function pageUrn(ctx: ProviderContext): string {
  const { page } = linkedinConfig(ctx.config);
  if (!page) throw new ProviderError('auth', "The LinkedIn page channel's credentials name no page; connect it again.");
  return `urn:li:organization:${page}`;
}

/** `shares=List(…)&ugcPosts=List(…)`: each URN encoded inside Rest.li's list syntax. */
function listParams(refs: readonly PublishedRef[]): string {
  const lists: Record<'share' | 'ugcPost', string[]> = { share: [], ugcPost: [] };
  for (const ref of refs) {
    const kind = postKind(ref.id);
    if (kind) lists[kind].push(encodeURIComponent(ref.id));
  }
  return [
    ...(lists.share.length ? [`shares=List(${lists.share.join(',')})`] : []),
    ...(lists.ugcPost.length ? [`ugcPosts=List(${lists.ugcPost.join(',')})`] : []),
  ].join('&');
}

/**
 * A page's posts: organic impressions, unique impressions, clicks, likes, comments and shares from
 * organizationalEntityShareStatistics (lifetime totals over LinkedIn's rolling 12 months), and
 * the page's followers from networkSizes (`firstDegreeSize`). Both need the page's admin rights.
 */
export const linkedinPageMetrics: ProviderMetrics = {
  reports: { post: ['impressions', 'reach', 'clicks', 'likes', 'replies', 'reposts'], account: ['followers'] },
  batchSize: PAGE_BATCH,
  async posts(ctx, refs) {
    const found = new Map<string, MetricsReading>();
    const params = listParams(refs);
    if (!params) return found;
    const json = await read(
      ctx,
      `/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${encodeURIComponent(pageUrn(ctx))}&${params}`,
      'r_organization_admin',
    );
    const elements = field(json, 'elements');
    for (const element of Array.isArray(elements) ? elements : []) {
      const urn = field(element, 'share') ?? field(element, 'ugcPost');
      if (typeof urn === 'string') found.set(urn, readMetrics(field(element, 'totalShareStatistics'), PAGE_FIELDS));
    }
    return found;
  },
  async account(ctx) {
    const json = await read(
      ctx,
      `/rest/networkSizes/${encodeURIComponent(pageUrn(ctx))}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`,
      'r_organization_admin',
    );
    return readMetrics(json, { firstDegreeSize: 'followers' });
  },
};
