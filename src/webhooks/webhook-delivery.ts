import { defaultChannelPicture, presentChannel, type ChannelsService } from '../channels/channels.service.ts';
import { presentMedia } from '../media/media.operations.ts';
import type { MediaService } from '../media/media.service.ts';
import type { Db } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { waitWhileBusy, type Activity } from '../lib/activity.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { OutboundClient } from '../net/outbound.ts';
import * as notificationsRepo from '../notifications/notifications.repository.ts';
import { toNotification } from '../notifications/notifications.service.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import * as postsRepo from '../posts/posts.repository.ts';
import * as channelsRepo from '../channels/channels.repository.ts';
import { approvalSteps, toPostRecord } from '../posts/posts.service.ts';
import { signWebhook } from '../providers/webhook/webhook.signature.ts';
import * as repo from './webhooks.repository.ts';
import type { WebhookEventsTable } from './webhooks.table.ts';

/**
 * When each attempt after the first is made, counted from the failure before it: the first retry
 * within a minute, the last about a day after the event. Each wait is jittered by ±20 %, and a
 * receiver's `Retry-After` lengthens it (never beyond `MAX_RETRY_AFTER_MS`).
 */
export const RETRY_SCHEDULE_MS = [
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 3600_000,
  4 * 3600_000,
  8 * 3600_000,
  8 * 3600_000,
] as const;
/** Attempts in all: the first and one per wait of the schedule. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;
/** How long one attempt may take, the answer read included. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/** The answer's bytes read at most; the log keeps the first `RESPONSE_EXCERPT` characters. */
const RESPONSE_LIMIT = 16 * 1024;
export const RESPONSE_EXCERPT = 1024;
/** How long a claimed delivery holds by default (WEBHOOK_LEASE_SECONDS): well beyond an attempt's timeout; past it, another worker sends it again (at least once). */
const LEASE_MS = 5 * 60_000;
/**
 * Attempts in flight at once to one endpoint, across every process on the database: a slow
 * receiver holds only its own deliveries back, and several workers together never send it more.
 */
export const PER_ENDPOINT = 4;
/** Attempts in flight at once, per process, and events dispatched per look. */
const FULL_SHARE = { concurrency: 16, dispatchBatch: 100 };
/**
 * While posts are being published (see `start`'s `publishing`), deliveries wait for the burst to
 * end, `HOLD_MS` at most: a burst keeps the whole process and the deliveries catch up at full
 * speed once it is over. Publishing that goes on past the hold shares the process with deliveries
 * made one attempt at a time and in small batches (`PUBLISHING_SHARE`), so events are never held
 * back indefinitely.
 */
export const HOLD_MS = 10_000;
const PUBLISHING_SHARE = { concurrency: 1, dispatchBatch: 16 };
/** How often a held worker looks at publishing again when no publish ends meanwhile. */
const HOLD_POLL_MS = 250;
const BATCH = 100;
/** How long an event, its deliveries and their attempts are kept once every delivery of it is settled. */
export const RETENTION_MS = 30 * 24 * 3600_000;
/** Events purged at most per statement (each with at most 20 deliveries of at most 10 attempts). */
export const PURGE_BATCH = 100;
/** How long the worker waits before looking for expired events again after a look that left none. */
const PURGE_INTERVAL_MS = 10 * 60_000;
/** How long the secret before a rotation keeps signing deliveries beside the new one. */
export const ROTATION_GRACE_MS = 24 * 3600_000;

export type WebhookDeliveryDeps = {
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  outbound: OutboundClient;
  channels: ChannelsService;
  media: MediaService;
  notifications: NotificationsService;
  baseUrl: string;
  /** The claim's lease (WEBHOOK_LEASE_SECONDS), and test seams: a shorter attempt timeout, a fixed jitter. */
  webhookDelivery?: { leaseMs?: number; attemptTimeoutMs?: number; random?: () => number } | undefined;
};

/** The wait before attempt `attempts + 1`, after `attempts` failed ones: the schedule's, jittered, at least the receiver's `Retry-After`. */
export function retryDelay(attempts: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  const base = RETRY_SCHEDULE_MS[Math.min(attempts, RETRY_SCHEDULE_MS.length) - 1]!;
  const jittered = Math.round(base * (0.8 + 0.4 * random()));
  return Math.min(Math.max(jittered, retryAfterMs ?? 0), MAX_RETRY_AFTER_MS);
}

/** What one attempt of a claimed delivery came to, waiting to be settled with the others of its claim. */
type Outcome = {
  delivery: repo.ClaimedDelivery;
  claimedAt: string;
  attempt: number;
  started: Date;
  ended: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  response: string | null;
  retryAfterMs: number | null;
};

/** `Retry-After` in milliseconds: seconds or an HTTP date; null when absent or unreadable. */
function readRetryAfter(value: string | null, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(at - now.getTime(), 0);
}

/**
 * The delivery worker: turns the outbox's events into deliveries (rendering each event's body
 * once, with the REST API's own serializers) and sends them, signed by Standard Webhooks, through
 * the guarded outbound client. Every step is claimed in the database by a conditional update
 * (an event's dispatch, a delivery's lease), so any number of processes may run it on the same
 * database: a delivery is sent by one of them at a time, and again only when the one that
 * claimed it went quiet past its lease (at least once). Retries are scheduled on the service
 * clock, so tests move time.
 */
export class WebhookDelivery {
  readonly #deps: WebhookDeliveryDeps;
  readonly #random: () => number;
  #inFlight = 0;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = true;
  #unsubscribe: Array<() => void> = [];
  #nextPurgeAt = 0;
  #publishing: Activity | null = null;
  /** When the current hold for publishing began (`performance.now()`), null while not holding. */
  #heldSince: number | null = null;
  /** Whether publishing was under way at the last look (deliveries then take `PUBLISHING_SHARE`). */
  #publishingNow = false;

  constructor(deps: WebhookDeliveryDeps) {
    this.#deps = deps;
    this.#random = deps.webhookDelivery?.random ?? Math.random;
  }

  /**
   * Runs `drain` every `intervalMs`, when this process records events and when a test clock jumps;
   * on the ticks, also the purge of expired events, one bounded batch per tick. While `publishing`
   * is busy, deliveries wait (`HOLD_MS` at most), then take a small share (`PUBLISHING_SHARE`).
   */
  start(options: { intervalMs: number; publishing?: Activity }, wakeOn: { onRecorded(listener: () => void): () => void }): void {
    this.#stopped = false;
    if (options.publishing) this.#publishing = options.publishing;
    const wake = () => void this.wake();
    this.#unsubscribe = [wakeOn.onRecorded(wake), ...(this.#deps.clock.onJump ? [this.#deps.clock.onJump(wake)] : [])];
    const tick = () => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => {
        this.wake()
          .then(() => this.#purgeWhenDue())
          .catch((error: unknown) => console.error('Webhook retention purge failed:', error))
          .finally(tick);
      }, options.intervalMs);
      this.#timer.unref();
    };
    tick();
    wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#unsubscribe.forEach((unsubscribe) => unsubscribe());
    this.#unsubscribe = [];
    await this.#running;
  }

  /** A drain, or, while one runs, another right after it. */
  wake(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.drain();
        } while (this.#again && !this.#stopped);
      } catch (error) {
        // The next tick tries again; nothing is lost, the outbox is the truth.
        console.error('Webhook delivery failed:', error);
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }

  /**
   * Deletes up to `limit` events (oldest first) whose deliveries have all been settled (succeeded
   * or failed) for `RETENTION_MS` on the service clock, with those deliveries and their attempts;
   * how many events it deleted.
   */
  purgeExpired(limit = PURGE_BATCH): Promise<number> {
    const before = new Date(this.#deps.clock.now().getTime() - RETENTION_MS).toISOString();
    return repo.purgeSettledEvents(this.#deps.db, before, limit);
  }

  /** One batch when due: again at the next tick while batches come back full, else after `PURGE_INTERVAL_MS`. */
  async #purgeWhenDue(): Promise<void> {
    const now = this.#deps.clock.now().getTime();
    if (this.#stopped || now < this.#nextPurgeAt) return;
    const purged = await this.purgeExpired();
    this.#nextPurgeAt = purged === PURGE_BATCH ? now : now + PURGE_INTERVAL_MS;
  }

  /** Dispatches every event recorded and sends every delivery due now, until none is left. */
  async drain(): Promise<void> {
    for (;;) {
      await this.#giveWayToPublishing();
      const dispatched = await this.dispatch();
      const sent = await this.sendDue();
      if (dispatched === 0 && sent === 0) return;
    }
  }

  /**
   * Creates the deliveries of a batch of events not yet dispatched, rendering each one's body:
   * the posts of the batch are read together, and one transaction marks every event dispatched
   * and creates all their deliveries. How many events it dispatched.
   */
  async dispatch(): Promise<number> {
    const { db, clock } = this.#deps;
    const events = await repo.listUndispatchedEvents(db, this.#share().dispatchBatch);
    if (events.length === 0) return 0;
    const bodies = await this.#bodies(events);
    return db.transaction().execute(async (trx) => {
      const dispatched = await repo.markDispatched(trx, bodies);
      const mine = events.filter((event) => dispatched.has(event.id));
      const endpoints = await repo.listEnabledEndpoints(trx, [...new Set(mine.map((event) => event.workspace_id))]);
      const stamp = clock.now().toISOString();
      const rows = mine.flatMap((event) => {
        const only = event.type === 'webhook.test' ? (JSON.parse(event.details) as { endpointId?: string }).endpointId : undefined;
        return endpoints
          .filter(
            (endpoint) =>
              endpoint.workspace_id === event.workspace_id &&
              (only
                ? endpoint.id === only
                : event.type === 'webhook.test' || (JSON.parse(endpoint.event_types) as string[]).includes(event.type)),
          )
          .map((endpoint) => ({
            id: newId(),
            event_id: event.id,
            endpoint_id: endpoint.id,
            workspace_id: event.workspace_id,
            subject_id: event.subject_id,
            position: event.position,
            state: 'pending' as const,
            attempts: 0,
            next_attempt_at: stamp,
            claimed_at: null,
            lease_until: null,
            first_attempt_at: null,
            last_status: null,
            last_error: null,
            created_at: stamp,
            updated_at: stamp,
          }));
      });
      if (rows.length > 0) await repo.insertDeliveries(trx, rows);
      return dispatched.size;
    });
  }

  /** The body of each event that could be rendered; one that cannot does not hold back the others (it is tried again at the next look). */
  async #bodies(events: WebhookEventsTable[]): Promise<Map<string, string>> {
    const posts = await this.#posts(events.filter((event) => event.type.startsWith('post.')).map((event) => event.subject_id));
    const bodies = new Map<string, string>();
    for (const event of events) {
      try {
        const subject = event.type.startsWith('post.') ? { post: posts.get(event.subject_id) ?? null } : await this.#subject(event);
        bodies.set(event.id, JSON.stringify(this.#envelope(event, subject)));
      } catch (error) {
        console.error(`Webhook event ${event.id} could not be dispatched:`, error);
      }
    }
    return bodies;
  }

  /** The envelope: the type, when it happened, the workspace, and the object in the REST API's shape with what the event adds. */
  #envelope(event: WebhookEventsTable, subject: Record<string, unknown>): Record<string, unknown> {
    const details = JSON.parse(event.details) as Record<string, unknown>;
    return { type: event.type, timestamp: event.created_at, workspace: event.workspace_id, data: { ...subject, ...details } };
  }

  /** Posts as the REST API returns them, read together (four statements for any number). */
  async #posts(ids: string[]): Promise<Map<string, ReturnType<typeof toPostRecord>>> {
    const { db } = this.#deps;
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const posts = await postsRepo.findPostsByIds(db, unique);
    const [parts, providers, steps] = await Promise.all([
      postsRepo.listParts(
        db,
        posts.map((post) => post.id),
      ),
      channelsRepo.channelProviders(db, [...new Set(posts.map((post) => post.channel_id))]),
      approvalSteps(
        db,
        posts.map((post) => post.id),
      ),
    ]);
    return new Map(
      posts.map((post) => [
        post.id,
        toPostRecord(
          post,
          parts.filter((part) => part.post_id === post.id),
          providers.get(post.channel_id) ?? 'unknown',
          steps.get(post.id) ?? [],
        ),
      ]),
    );
  }

  /** What a channel, media or notification event is about, in the REST API's shape. */
  async #subject(event: WebhookEventsTable): Promise<Record<string, unknown>> {
    const { db, channels } = this.#deps;
    if (event.type.startsWith('channel.')) {
      const channel = await channels.getAnyState(event.workspace_id, event.subject_id);
      return { channel: channel ? presentChannel(channel, defaultChannelPicture(this.#deps.baseUrl)) : null };
    }
    if (event.type === 'media.uploaded') {
      const media = await this.#deps.media.get(event.workspace_id, event.subject_id).catch(() => null);
      return { media: media ? presentMedia(media) : null };
    }
    if (event.type === 'notification.created') {
      const row = await notificationsRepo.findNotification(db, event.workspace_id, event.subject_id);
      return { notification: row ? toNotification(row) : null };
    }
    return {};
  }

  /**
   * Sends the deliveries due now, endpoint by endpoint, each endpoint's within its cap of
   * attempts in flight (`PER_ENDPOINT`, across processes): its due deliveries are claimed
   * together up to the slots free, sent side by side, and settled together, until none is due.
   * How many it claimed.
   */
  async sendDue(): Promise<number> {
    const due = await repo.listDueDeliveries(this.#deps.db, this.#deps.clock.now().toISOString(), BATCH);
    const counts = await Promise.all([...new Set(due.map((delivery) => delivery.endpoint_id))].map((id) => this.#sendEndpoint(id)));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  async #sendEndpoint(endpointId: string): Promise<number> {
    let count = 0;
    for (;;) {
      await this.#giveWayToPublishing();
      const stamp = this.#deps.clock.now().toISOString();
      const leaseUntil = new Date(Date.parse(stamp) + (this.#deps.webhookDelivery?.leaseMs ?? LEASE_MS)).toISOString();
      const claimed = await repo.claimDueDeliveries(this.#deps.db, endpointId, { stamp, leaseUntil }, PER_ENDPOINT);
      if (claimed.length === 0) return count;
      count += claimed.length;
      const outcomes = await Promise.all(claimed.map((delivery) => this.#attemptWhenFree(delivery, stamp)));
      await this.#settle(outcomes);
    }
  }

  async #attemptWhenFree(delivery: repo.ClaimedDelivery, claimedAt: string): Promise<Outcome> {
    while (this.#inFlight >= this.#share().concurrency) await new Promise((resolve) => setTimeout(resolve, 10));
    this.#inFlight += 1;
    try {
      return await this.#attempt(delivery, claimedAt);
    } finally {
      this.#inFlight -= 1;
    }
  }

  #share(): { concurrency: number; dispatchBatch: number } {
    return this.#publishingNow ? PUBLISHING_SHARE : FULL_SHARE;
  }

  /**
   * Waits while publishing is under way, until `HOLD_MS` after the hold began; once the hold has
   * run out, goes on without waiting (at `PUBLISHING_SHARE`) until publishing stops.
   */
  async #giveWayToPublishing(): Promise<void> {
    const publishing = this.#publishing;
    if (!publishing) return;
    this.#heldSince ??= performance.now();
    const left = HOLD_MS - (performance.now() - this.#heldSince);
    if (left > 0) await waitWhileBusy(publishing, { pollMs: HOLD_POLL_MS, maxMs: left, stopped: () => this.#stopped });
    this.#publishingNow = await publishing.busy();
    if (!this.#publishingNow) this.#heldSince = null;
  }

  /** The secrets that sign a delivery now: the current one, and the previous one during its grace period. */
  #secrets(delivery: { secret: string; previous_secret: string | null; previous_secret_until: string | null }, now: Date): string[] {
    const { secretBox } = this.#deps;
    const secrets = [secretBox.open(delivery.secret)];
    if (delivery.previous_secret && delivery.previous_secret_until && Date.parse(delivery.previous_secret_until) > now.getTime())
      secrets.push(secretBox.open(delivery.previous_secret));
    return secrets;
  }

  /** One attempt of a claimed delivery: sent, signed, unless its endpoint was disabled meanwhile; what happened, to be settled. */
  async #attempt(delivery: repo.ClaimedDelivery, claimedAt: string): Promise<Outcome> {
    const { clock, outbound } = this.#deps;
    const started = clock.now();
    const attempt = Number(delivery.attempts) + 1;
    const body = delivery.body ?? '{}';
    const webhookId = `msg_${delivery.event_id}`;
    // The receiver checks it against its own clock (replay protection): the real time, not the service clock that schedules retries.
    const timestamp = Math.floor(Date.now() / 1000);
    let status: number | null = null;
    let error: string | null = null;
    let response: string | null = null;
    let retryAfterMs: number | null = null;
    const t0 = performance.now();
    if (Number(delivery.enabled) !== 1) {
      error = 'The endpoint was disabled before this attempt; nothing was sent.';
    } else {
      try {
        const signature = this.#secrets(delivery, started)
          .map((secret) => signWebhook(secret, webhookId, timestamp, body))
          .join(' ');
        const answer = await outbound.request(delivery.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Herald-Webhooks/1',
            'webhook-id': webhookId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signature,
          },
          body,
          maxRedirects: 0,
          limit: RESPONSE_LIMIT,
          timeoutMs: this.#deps.webhookDelivery?.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
        });
        status = answer.status;
        response = answer.body?.toString('utf8').slice(0, RESPONSE_EXCERPT) ?? null;
        retryAfterMs = readRetryAfter(answer.headers.get('retry-after'), started);
        if (status < 200 || status >= 300) error = `The endpoint answered ${status}.`;
      } catch (caught) {
        error = caught instanceof Error ? caught.message : String(caught);
      }
    }
    return {
      delivery,
      claimedAt,
      attempt,
      started,
      ended: clock.now(),
      durationMs: Math.round(performance.now() - t0),
      status,
      error,
      response,
      retryAfterMs,
    };
  }

  /**
   * Settles the attempts of one claim together, in one transaction: each delivery still held
   * under its claim gets its new state and its attempt row; the endpoint is marked healthy after
   * a success, failing after failures that no success followed. Then endpoints whose failures
   * used up a delivery's attempts are disabled.
   */
  async #settle(outcomes: Outcome[]): Promise<void> {
    const { db } = this.#deps;
    const final = (o: Outcome) => o.error === null || o.attempt >= MAX_ATTEMPTS || Number(o.delivery.enabled) !== 1;
    const firstAttemptAt = (o: Outcome) => o.delivery.first_attempt_at ?? o.started.toISOString();
    const settled = await db.transaction().execute(async (trx) => {
      const held: Outcome[] = [];
      for (const o of outcomes) {
        const succeeded = o.error === null;
        const ok = await repo.settleDelivery(trx, o.delivery.id, o.claimedAt, {
          state: succeeded ? 'succeeded' : final(o) ? 'failed' : 'pending',
          attempts: o.attempt,
          first_attempt_at: firstAttemptAt(o),
          next_attempt_at: final(o)
            ? null
            : new Date(o.ended.getTime() + retryDelay(o.attempt, o.retryAfterMs, this.#random)).toISOString(),
          last_status: o.status,
          last_error: o.error,
          updated_at: o.ended.toISOString(),
        });
        if (ok) held.push(o);
      }
      await repo.insertAttempts(
        trx,
        held.map((o) => ({
          id: newId(),
          delivery_id: o.delivery.id,
          attempt: o.attempt,
          at: o.started.toISOString(),
          status: o.status,
          duration_ms: o.durationMs,
          error: o.error,
          response: o.response,
        })),
      );
      // In the order the attempts ended: failing from the first failure after the last success.
      const byEnd = [...held].sort((x, y) => x.ended.getTime() - y.ended.getTime());
      const lastSuccess = byEnd.findLastIndex((o) => o.error === null);
      const failedSince = byEnd.slice(lastSuccess + 1)[0];
      const endpointId = outcomes[0]?.delivery.endpoint_id;
      if (endpointId !== undefined && lastSuccess >= 0) await repo.markHealthy(trx, endpointId);
      if (endpointId !== undefined && failedSince) await repo.markFailing(trx, endpointId, failedSince.started.toISOString());
      return held;
    });
    for (const o of settled)
      if (o.error !== null && final(o) && Number(o.delivery.enabled) === 1)
        await this.#disableIfFailing(o.delivery, firstAttemptAt(o), o.ended.toISOString());
  }

  /**
   * A delivery that used up its attempts disables its endpoint when the endpoint has not
   * succeeded once since that delivery's first attempt (about a day of failures); the workspace is told.
   */
  async #disableIfFailing(delivery: { endpoint_id: string; workspace_id: string; url: string }, firstAttemptAt: string, stamp: string) {
    if (!(await repo.disableFailing(this.#deps.db, delivery.endpoint_id, firstAttemptAt, stamp))) return;
    await this.#deps.notifications.notify(delivery.workspace_id, {
      kind: 'webhook_disabled',
      message: `The webhook endpoint ${delivery.endpoint_id} (${delivery.url}) was disabled: every delivery to it failed for about a day. Fix the receiver, then enable the endpoint again (PATCH /webhooks/${delivery.endpoint_id} with enabled: true) and replay what it missed.`,
    });
  }
}
