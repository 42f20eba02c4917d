import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/sql.ts';
import type { Clock } from '../lib/clock.ts';
import { randomToken } from '../lib/ids.ts';
import * as repo from './short-links.repository.ts';

/**
 * User agents that fetch a link without a person clicking it: search and social crawlers, the
 * link-preview fetchers of chat apps and fediverse servers (Mastodon's is `http.rb/… (Mastodon/…)`,
 * Bluesky's `cardyb`), monitoring, and HTTP libraries.
 */
const AUTOMATED_AGENT =
  /bot\b|bot\/|crawl|spider|slurp|preview|externalhit|facebookcatalog|embedly|iframely|cardyb|whatsapp|telegram|slack|discord|skype|twitter|linkedin|mastodon|pleroma|akkoma|misskey|friendica|lemmy|http\.rb|curl\/|wget|python|go-http|java\/|okhttp|node-fetch|undici|axios|headless|lighthouse|pingdom|uptime|monitor/i;

/**
 * Whether a visit of a short link is a person's click. Not counted: HEAD requests, a missing
 * user agent, an agent matching `AUTOMATED_AGENT`, and a browser's speculative prefetch
 * (`Purpose: prefetch` or `Sec-Purpose: prefetch…`). The visitor is redirected either way.
 */
export function isPersonClick(visit: { method: string; userAgent?: string | undefined; purpose?: string | undefined }): boolean {
  if (visit.method !== 'GET') return false;
  if (!visit.userAgent || AUTOMATED_AGENT.test(visit.userAgent)) return false;
  return !/prefetch|prerender/i.test(visit.purpose ?? '');
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"')\]]+[^\s<>"')\].,;:!?]/g;

/** Short links served by Herald at `{BASE_URL}/s/{code}`: a redirect that counts clicks. */
export class ShortLinksService {
  constructor(private readonly deps: { db: Db; clock: Clock; baseUrl: string }) {}

  /** The short link for `url` in a post, the same one every time it is asked for. */
  async shorten(workspaceId: string, postId: string, url: string): Promise<string> {
    const { db } = this.deps;
    const existing = await repo.findCodeFor(db, postId, url);
    if (existing) return this.address(existing.code);
    const code = randomToken(8);
    try {
      await repo.insertShortLink(db, {
        code,
        workspace_id: workspaceId,
        post_id: postId,
        url,
        clicks: 0,
        created_at: this.deps.clock.now().toISOString(),
      });
      return this.address(code);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const raced = await repo.findCodeFor(db, postId, url);
      if (raced) return this.address(raced.code);
      throw error;
    }
  }

  /**
   * Replaces every http(s) link in `text` with its short link (its own links are left alone).
   * Links are replaced where they were found, so one that begins another (`https://a.example`
   * and `https://a.example/x`) never touches the other.
   */
  async shortenAll(workspaceId: string, postId: string, text: string): Promise<string> {
    const own = `${this.deps.baseUrl}/s/`;
    const found = [...text.matchAll(URL_PATTERN)].filter((m) => !m[0].startsWith(own));
    const shortened = new Map<string, string>();
    for (const match of found) {
      if (!shortened.has(match[0])) shortened.set(match[0], await this.shorten(workspaceId, postId, match[0]));
    }
    let out = '';
    let at = 0;
    for (const match of found) {
      out += text.slice(at, match.index) + shortened.get(match[0])!;
      at = match.index + match[0].length;
    }
    return out + text.slice(at);
  }

  /** Follows a code: the target URL, or null when unknown. The click is counted when `count` (a person's click: `isPersonClick`). */
  async follow(code: string, count = true): Promise<string | null> {
    const row = await repo.findShortLink(this.deps.db, code);
    if (!row) return null;
    if (count) await repo.countClick(this.deps.db, code);
    return row.url;
  }

  async clicks(code: string): Promise<number | null> {
    const row = await repo.findShortLink(this.deps.db, code);
    return row ? Number(row.clicks) : null;
  }

  private address(code: string): string {
    return `${this.deps.baseUrl}/s/${code}`;
  }
}
