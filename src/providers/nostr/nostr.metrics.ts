import { noAnswerReason } from '../../net/outbound.ts';
import { readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { ProviderError, type ProviderContext } from '../provider.ts';
import { nostr, parseConfig } from './nostr.provider.ts';
import { relayExchange } from './nostr.relay.ts';

type NostrEvent = import('nostr-tools/pure').Event;

/** Notes asked about in one REQ (Herald's bound: every id is in each filter). */
const BATCH = 50;
const SUBSCRIPTION = 'herald-metrics';
/** Kinds that point at a note with an `e` tag: replies (1), reposts (6, 16), reactions (7), comments (1111), zap receipts (9735). */
const TAGGING_KINDS = [1, 6, 7, 16, 1111, 9735];

/** The platform's own counts, by event kind and meaning (named as NIPs name them). */
type Counts = {
  kind7: number;
  kind7_dislike: number;
  kind6: number;
  kind16: number;
  kind1_reply: number;
  kind1111: number;
  quotes: number;
  kind9735: number;
};
const FIELDS = {
  likes: 'likes',
  kind6: 'reposts',
  kind16: 'reposts',
  kind1_reply: 'replies',
  kind1111: 'replies',
  quotes: 'quotes',
  kind9735: 'zaps',
} as const;

const tagValues = (event: NostrEvent, name: string) => event.tags.filter((tag) => tag[0] === name && typeof tag[1] === 'string');

/**
 * The note `event` answers directly (NIP-10): the `e` tag marked `reply`, else the one marked
 * `root`; with unmarked (positional) tags, the last one. `mention` tags answer nothing.
 */
function repliedTo(event: NostrEvent): string | undefined {
  const tags = tagValues(event, 'e');
  const marked = tags.filter((tag) => tag[3] === 'reply' || tag[3] === 'root');
  if (marked.length > 0) return (marked.find((tag) => tag[3] === 'reply') ?? marked[0])![1];
  const unmarked = tags.filter((tag) => tag[3] === undefined || tag[3] === '');
  return unmarked.at(-1)?.[1];
}

/** What `event` counts towards, for the notes in `ids`: [note id, field]. */
function attribute(event: NostrEvent, ids: ReadonlySet<string>): Array<[string, keyof Counts]> {
  const found: Array<[string, keyof Counts]> = [];
  // Quotes (NIP-18 `q` tags) from notes and comments, whatever else they are.
  if (event.kind === 1 || event.kind === 1111)
    for (const tag of tagValues(event, 'q')) if (ids.has(tag[1]!)) found.push([tag[1]!, 'quotes']);
  const lastE = tagValues(event, 'e').at(-1)?.[1];
  switch (event.kind) {
    case 7: {
      // NIP-25: the last `e` tag is the note reacted to; "-" is a dislike, "+", "" and emoji are reactions.
      if (lastE && ids.has(lastE)) found.push([lastE, event.content === '-' ? 'kind7_dislike' : 'kind7']);
      break;
    }
    case 6:
    case 16:
    case 9735: {
      const target = tagValues(event, 'e')
        .map((tag) => tag[1]!)
        .find((id) => ids.has(id));
      if (target) found.push([target, event.kind === 6 ? 'kind6' : event.kind === 16 ? 'kind16' : 'kind9735']);
      break;
    }
    case 1: {
      const target = repliedTo(event);
      if (target && ids.has(target)) found.push([target, 'kind1_reply']);
      break;
    }
    case 1111: {
      // NIP-22: the lowercase `e` tag is the parent commented on.
      if (lastE && ids.has(lastE)) found.push([lastE, 'kind1111']);
      break;
    }
  }
  return found;
}

/** Every event one relay holds for `filters`, read until its EOSE; a relay that closes the subscription or runs out of time fails. */
async function readRelay(ctx: ProviderContext, relay: string, filters: object[]): Promise<NostrEvent[]> {
  const events: NostrEvent[] = [];
  const outcome = await relayExchange<'done' | string>(
    ctx,
    relay,
    [['REQ', SUBSCRIPTION, ...filters]],
    (message) => {
      if (message[1] !== SUBSCRIPTION) return undefined;
      if (message[0] === 'EVENT' && message[2] && typeof message[2] === 'object') events.push(message[2] as NostrEvent);
      if (message[0] === 'EOSE') return 'done';
      if (message[0] === 'CLOSED') return `closed the subscription${typeof message[2] === 'string' ? ` (${message[2]})` : ''}`;
      return undefined;
    },
    () => 'no end of stored events in time',
  );
  if (outcome !== 'done') throw new Error(outcome);
  return events;
}

/**
 * Nostr's numbers, counted from the events the channel's relays hold (REQ, de-duplicated by event
 * id across relays, each event's signature checked): reactions (kind 7; "-" is a dislike, kept
 * apart), reposts (kinds 6 and 16), direct replies (kind 1 by NIP-10's markers, kind 1111
 * comments by their parent), quotes (`q` tags) and zap receipts (kind 9735) as `zaps`. A note no
 * relay that answered still holds is absent. Relays that cannot be read are left out of the count
 * while another one answers; when none answers, the reading fails (transient). Each relay keeps
 * its own part of the network and caps what one query returns, so these are lower bounds.
 * Followers (kind-3 lists naming the key) are not counted: each list is the follower's whole
 * follow list, too heavy to read in bulk.
 */
export const nostrMetrics: ProviderMetrics = {
  reports: { post: ['likes', 'reposts', 'replies', 'quotes', 'zaps'], account: [] },
  batchSize: BATCH,
  async posts(ctx, refs) {
    const { relays } = parseConfig(ctx);
    const ids = [...new Set(refs.map((ref) => ref.id).filter((id) => /^[0-9a-f]{64}$/.test(id)))];
    const found = new Map<string, MetricsReading>();
    if (ids.length === 0) return found;
    const filters = [{ ids }, { kinds: TAGGING_KINDS, '#e': ids }, { kinds: [1, 1111], '#q': ids }];
    const failures: Array<{ relay: string; error: unknown }> = [];
    const answered = await Promise.all(
      relays.map(async (relay) => {
        try {
          return await readRelay(ctx, relay, filters);
        } catch (error) {
          failures.push({ relay, error });
          return null;
        }
      }),
    );
    if (failures.length === relays.length) {
      const reason = failures.map((f) => `${f.relay}: ${noAnswerReason(f.error)}`).join('; ');
      const policy = failures.every((f) => (f.error as { code?: string }).code === 'outbound_refused');
      throw new ProviderError(policy ? 'rejected' : 'transient', `No relay could be read for the notes' numbers (${reason}).`, {
        noAnswer: { kind: policy ? 'policy' : 'unreachable', reason },
      });
    }
    const { verifyEvent } = nostr().pure;
    const wanted = new Set(ids);
    const seen = new Set<string>();
    const present = new Set<string>();
    const counts = new Map<string, Counts>(
      ids.map((id) => [id, { kind7: 0, kind7_dislike: 0, kind6: 0, kind16: 0, kind1_reply: 0, kind1111: 0, quotes: 0, kind9735: 0 }]),
    );
    for (const event of answered.flat()) {
      if (!event || typeof event.id !== 'string' || seen.has(event.id)) continue;
      seen.add(event.id);
      if (!Array.isArray(event.tags) || !verifyEvent(event)) continue;
      if (wanted.has(event.id)) {
        present.add(event.id);
        continue;
      }
      for (const [id, field] of attribute(event, wanted)) counts.get(id)![field] += 1;
    }
    for (const id of present) {
      const raw = counts.get(id)!;
      const reading = readMetrics({ ...raw, likes: raw.kind7 }, FIELDS);
      // `likes` is the reactions' own count (kind7), so the raw fields are the platform's only.
      found.set(id, { metrics: reading.metrics, raw: { ...raw } });
    }
    return found;
  },
  account: () => Promise.resolve({ metrics: {}, raw: {} }),
};
