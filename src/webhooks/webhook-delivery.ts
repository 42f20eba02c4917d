import { defaultChannelPicture, presentChannel, type ChannelsService } from '../channels/channels.service.ts';
import { presentMedia } from '../media/media.operations.ts';
import type { MediaService } from '../media/media.service.ts';
import type { Db } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { OutboundClient } from '../net/outbound.ts';
import * as notificationsRepo from '../notifications/notifications.repository.ts';
import { toNotification } from '../notifications/notifications.service.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import * as postsRepo from '../posts/posts.repository.ts';
import { approvalSteps, toPostRecord } from '../posts/posts.service.ts';
import { signWebhook } from '../providers/webhook/webhook.signature.ts';
import * as repo from './webhooks.repository.ts';
import type { DeliveryState, WebhookEventsTable } from './webhooks.table.ts';

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
/** Attempts in flight at once, per process. */
const CONCURRENCY = 16;
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

  constructor(deps: WebhookDeliveryDeps) {
    this.#deps = deps;
    this.#random = deps.webhookDelivery?.random ?? Math.random;
  }

  /**
   * Runs `drain` every `intervalMs`, when this process records events and when a test clock jumps;
   * on the ticks, also the purge of expired events, one bounded batch per tick.
   */
  start(options: { intervalMs: number }, wakeOn: { onRecorded(listener: () => void): () => void }): void {
    this.#stopped = false;
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
      const dispatched = await this.dispatch();
      const sent = await this.sendDue();
      if (dispatched === 0 && sent === 0) return;
    }
  }

  /** Creates the deliveries of events not yet dispatched, rendering each one's body; how many events it dispatched. */
  async dispatch(): Promise<number> {
    const events = await repo.listUndispatchedEvents(this.#deps.db, BATCH);
    let count = 0;
    for (const event of events) {
      try {
        if (await this.#dispatchOne(event)) count += 1;
      } catch (error) {
        // One event that cannot be rendered does not hold back the others; it is tried again at the next look.
        console.error(`Webhook event ${event.id} could not be dispatched:`, error);
      }
    }
    return count;
  }

  async #dispatchOne(event: WebhookEventsTable): Promise<boolean> {
    const { db, clock } = this.#deps;
    const body = JSON.stringify(await this.#envelope(event));
    return db.transaction().execute(async (trx) => {
      if (!(await repo.markDispatched(trx, event.id, body))) return false;
      const stamp = clock.now().toISOString();
      const endpoints = (await repo.listEnabledEndpoints(trx, event.workspace_id)).filter(
        (endpoint) => event.type === 'webhook.test' || (JSON.parse(endpoint.event_types) as string[]).includes(event.type),
      );
      const only = event.type === 'webhook.test' ? (JSON.parse(event.details) as { endpointId?: string }).endpointId : undefined;
      const targets = only ? endpoints.filter((endpoint) => endpoint.id === only) : endpoints;
      if (targets.length > 0)
        await repo.insertDeliveries(
          trx,
          targets.map((endpoint) => ({
            id: newId(),
            event_id: event.id,
            endpoint_id: endpoint.id,
            workspace_id: event.workspace_id,
            subject_id: event.subject_id,
            position: event.position,
            state: 'pending',
            attempts: 0,
            next_attempt_at: stamp,
            claimed_at: null,
            lease_until: null,
            first_attempt_at: null,
            last_status: null,
            last_error: null,
            created_at: stamp,
            updated_at: stamp,
          })),
        );
      return true;
    });
  }

  /** The envelope: the type, when it happened, the workspace, and the object in the REST API's shape with what the event adds. */
  async #envelope(event: WebhookEventsTable): Promise<Record<string, unknown>> {
    const details = JSON.parse(event.details) as Record<string, unknown>;
    return {
      type: event.type,
      timestamp: event.created_at,
      workspace: event.workspace_id,
      data: { ...(await this.#subject(event)), ...details },
    };
  }

  async #subject(event: WebhookEventsTable): Promise<Record<string, unknown>> {
    const { db, channels } = this.#deps;
    if (event.type.startsWith('post.')) {
      const post = await postsRepo.findPostForEngine(db, event.subject_id);
      if (!post || post.workspace_id !== event.workspace_id) return { post: null };
      const parts = await postsRepo.listParts(db, [post.id]);
      const channel = await channels.getAnyState(post.workspace_id, post.channel_id);
      const steps = (await approvalSteps(db, [post.id])).get(post.id) ?? [];
      return { post: toPostRecord(post, parts, channel?.provider ?? 'unknown', steps) };
    }
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
   * Claims and sends the deliveries due now, each endpoint's within its cap of attempts in flight
   * (`PER_ENDPOINT`, across processes); a slot freed goes on with that endpoint's next due
   * delivery. How many it claimed from the first look.
   */
  async sendDue(): Promise<number> {
    const { db, clock } = this.#deps;
    const due = await repo.listDueDeliveries(db, clock.now().toISOString(), BATCH);
    const attempts: Array<Promise<void>> = [];
    for (const delivery of due) {
      const claimedAt = await this.#claim(delivery);
      if (claimedAt) attempts.push(this.#sendAndGoOn(delivery.id, delivery.endpoint_id, claimedAt));
    }
    await Promise.all(attempts);
    return attempts.length;
  }

  /** Claims `delivery` within its endpoint's cap; the claim's stamp, or null. */
  async #claim(delivery: { id: string; endpoint_id: string; state: DeliveryState; claimed_at: string | null }): Promise<string | null> {
    const stamp = this.#deps.clock.now().toISOString();
    const leaseUntil = new Date(Date.parse(stamp) + (this.#deps.webhookDelivery?.leaseMs ?? LEASE_MS)).toISOString();
    return (await repo.claimDeliveryWithin(this.#deps.db, delivery, { stamp, leaseUntil }, PER_ENDPOINT)) ? stamp : null;
  }

  /** Sends one claimed delivery, then the endpoint's next due ones in the same slot while it can claim them. */
  async #sendAndGoOn(id: string, endpointId: string, claimedAt: string): Promise<void> {
    let next: { id: string; claimedAt: string } | null = { id, claimedAt };
    while (next) {
      await this.#attemptWhenFree(next.id, next.claimedAt);
      const [delivery] = await repo.listDueDeliveries(this.#deps.db, this.#deps.clock.now().toISOString(), 1, endpointId);
      const stamp = delivery ? await this.#claim(delivery) : null;
      next = delivery && stamp ? { id: delivery.id, claimedAt: stamp } : null;
    }
  }

  async #attemptWhenFree(id: string, claimedAt: string): Promise<void> {
    const delivery = await repo.findClaimedDelivery(this.#deps.db, id);
    if (!delivery || delivery.claimed_at !== claimedAt) return;
    while (this.#inFlight >= CONCURRENCY) await new Promise((resolve) => setTimeout(resolve, 10));
    this.#inFlight += 1;
    try {
      await this.#attempt(delivery, claimedAt);
    } finally {
      this.#inFlight -= 1;
    }
  }

  /** The secrets that sign a delivery now: the current one, and the previous one during its grace period. */
  #secrets(delivery: { secret: string; previous_secret: string | null; previous_secret_until: string | null }, now: Date): string[] {
    const { secretBox } = this.#deps;
    const secrets = [secretBox.open(delivery.secret)];
    if (delivery.previous_secret && delivery.previous_secret_until && Date.parse(delivery.previous_secret_until) > now.getTime())
      secrets.push(secretBox.open(delivery.previous_secret));
    return secrets;
  }

  async #attempt(delivery: NonNullable<Awaited<ReturnType<typeof repo.findClaimedDelivery>>>, claimedAt: string): Promise<void> {
    const { db, clock, outbound } = this.#deps;
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
    const durationMs = Math.round(performance.now() - t0);
    const now = clock.now();
    const stamp = now.toISOString();
    const succeeded = error === null;
    const final = succeeded || attempt >= MAX_ATTEMPTS || Number(delivery.enabled) !== 1;
    const firstAttemptAt = delivery.first_attempt_at ?? started.toISOString();
    const settled = await db.transaction().execute(async (trx) => {
      const held = await repo.settleDelivery(trx, delivery.id, claimedAt, {
        state: succeeded ? 'succeeded' : final ? 'failed' : 'pending',
        attempts: attempt,
        first_attempt_at: firstAttemptAt,
        next_attempt_at: final ? null : new Date(now.getTime() + retryDelay(attempt, retryAfterMs, this.#random)).toISOString(),
        last_status: status,
        last_error: error,
        updated_at: stamp,
      });
      if (!held) return false;
      await repo.insertAttempt(trx, {
        id: newId(),
        delivery_id: delivery.id,
        attempt,
        at: started.toISOString(),
        status,
        duration_ms: durationMs,
        error,
        response,
      });
      if (succeeded) await repo.markHealthy(trx, delivery.endpoint_id);
      else await repo.markFailing(trx, delivery.endpoint_id, started.toISOString());
      return true;
    });
    if (settled && !succeeded && final && Number(delivery.enabled) === 1) await this.#disableIfFailing(delivery, firstAttemptAt, stamp);
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
