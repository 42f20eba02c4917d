import { field } from '../oauth-api.ts';
import { eachPart, readMetrics, type ProviderMetrics } from '../metrics.ts';
import { lemmyConfig } from './lemmy.client.ts';
import { lemmyCall } from './lemmy.provider.ts';

const POST_COUNTS = { score: 'score', upvotes: 'likes', comments: 'replies' } as const;
const COMMENT_COUNTS = { score: 'score', upvotes: 'likes', child_count: 'replies' } as const;

/**
 * Lemmy's counts as the account's instance knows them (votes from other instances arrive by
 * federation): a post's score, upvotes and comments (`GET /post?id=`), a comment's score, upvotes
 * and replies (`GET /comment?id=`), one a call; the account's posts (`GET /user?person_id=`).
 * Lemmy has no followers of people. A post or comment the instance no longer has is absent.
 */
export const lemmyMetrics: ProviderMetrics = {
  reports: { post: ['score', 'likes', 'replies'], account: ['posts'] },
  batchSize: 1,
  posts: (ctx, refs) =>
    eachPart(
      refs,
      async (ref) => {
        const isComment = ref.meta?.kind === 'comment';
        const { json } = await lemmyCall(
          ctx,
          isComment ? `/comment?id=${encodeURIComponent(ref.id)}` : `/post?id=${encodeURIComponent(ref.id)}`,
        );
        const counts = isComment ? field(json, 'comment_view', 'counts') : field(json, 'post_view', 'counts');
        return readMetrics(counts, isComment ? COMMENT_COUNTS : POST_COUNTS);
      },
      // Deleted or removed since: Lemmy answers `couldnt_find_…` rather than a 404.
      (error) => error.kind === 'rejected' && /couldnt_find/.test(error.message),
    ),
  async account(ctx) {
    const { personId } = lemmyConfig(ctx.config);
    if (!personId) return { metrics: {}, raw: {} };
    const { json } = await lemmyCall(ctx, `/user?person_id=${personId}&limit=1`);
    return readMetrics(field(json, 'person_view', 'counts'), { post_count: 'posts' });
  },
};
