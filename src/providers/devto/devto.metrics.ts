import { field } from '../oauth-api.ts';
import { readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { callForem, devtoConfig } from './devto.client.ts';

const POST_METRICS = { page_views_count: 'views', public_reactions_count: 'likes', comments_count: 'replies' } as const;
/** The most the API returns a page, and the pages read at most for one batch (the account's newest 10,000 articles). */
const PER_PAGE = 1000;
const MAX_PAGES = 10;

/**
 * The account's articles with their numbers (`GET /api/articles/me/all`, newest first, drafts
 * included): page views, reactions and comments. The API reads them a page of articles at a
 * time, not by id, so a batch reads pages until it found every article asked for.
 */
export const devtoMetrics: ProviderMetrics = {
  reports: { post: ['views', 'likes', 'replies'], account: [] },
  batchSize: 100,
  async posts(ctx, refs) {
    const config = devtoConfig(ctx.config);
    const wanted = new Set(refs.map((r) => r.id));
    const found = new Map<string, MetricsReading>();
    for (let page = 1; page <= MAX_PAGES && found.size < wanted.size; page++) {
      const { json } = await callForem(ctx, config, `/articles/me/all?page=${page}&per_page=${PER_PAGE}`);
      const articles = Array.isArray(json) ? json : [];
      for (const article of articles) {
        const id = String(field(article, 'id'));
        if (wanted.has(id)) found.set(id, readMetrics(article, POST_METRICS));
      }
      if (articles.length < PER_PAGE) break;
    }
    return found;
  },
  async account() {
    // Forem gives no follower count through the API key's endpoints.
    return readMetrics({}, {});
  },
};
