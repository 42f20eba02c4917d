import { randomBytes } from 'node:crypto';
import type * as z from 'zod';
import { requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { RestScope } from '../auth/scopes.ts';
import type { Db } from '../db/database.ts';
import { lockWebhookEvent } from '../db/sql.ts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { OutboundClient } from '../net/outbound.ts';
import { ROTATION_GRACE_MS } from './webhook-delivery.ts';
import type { WebhookOutbox } from './webhook-outbox.ts';
import * as repo from './webhooks.repository.ts';
import type {
  createWebhookBody,
  updateWebhookBody,
  webhookDeliverySchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from './webhooks.schema.ts';
import type { WebhookEndpointsTable } from './webhooks.table.ts';

export type Endpoint = z.infer<typeof webhookEndpointSchema>;
export type EndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;
export type Delivery = z.infer<typeof webhookDeliverySchema>;

/** At most this many endpoints per workspace. */
export const MAX_ENDPOINTS = 20;

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function toEndpoint(row: WebhookEndpointsTable, now: Date): Endpoint {
  const graceOn = row.previous_secret_until !== null && Date.parse(row.previous_secret_until) > now.getTime();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: JSON.parse(row.event_types) as Endpoint['eventTypes'],
    enabled: Number(row.enabled) === 1,
    disabledReason: row.disabled_reason === 'failing' ? 'failing' : null,
    failingSince: row.failing_since,
    previousSecretValidUntil: graceOn ? row.previous_secret_until : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A workspace's webhook endpoints and their delivery log. Managing them needs `webhooks:write`,
 * reading them `webhooks:read`; a key limited to some channels may do neither, since an endpoint
 * receives the events of every channel of the workspace.
 */
export class WebhooksService {
  constructor(
    private readonly deps: { db: Db; clock: Clock; secretBox: SecretBox; outbound: OutboundClient; webhookOutbox: WebhookOutbox },
  ) {}

  #allow(access: WorkspaceAccess, scope: RestScope): void {
    requireScope(access, scope);
    if (access.channelIds !== null)
      throw new ForbiddenError(
        'This key is limited to some channels; webhook endpoints receive the events of every channel, so they need a key for the whole workspace.',
        { code: 'channel_limited_key' },
      );
  }

  /** Refuses a URL Herald would not deliver to: internal addresses, and plain http anywhere but loopback. */
  #checkUrl(url: string): void {
    const refused = this.deps.outbound.refusal(url);
    if (refused) throw refused;
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    const loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
    if (parsed.protocol !== 'https:' && !loopback)
      throw new BadRequestError('url: webhook endpoints must use https (plain http only for a loopback address in development).', {
        code: 'invalid_url',
      });
  }

  async #find(access: WorkspaceAccess, id: string): Promise<WebhookEndpointsTable> {
    const row = await repo.findEndpoint(this.deps.db, access.workspace.id, id);
    if (!row) throw new NotFoundError(`No webhook endpoint ${id} in this workspace.`);
    return row;
  }

  async create(access: WorkspaceAccess, input: z.output<typeof createWebhookBody>): Promise<EndpointWithSecret> {
    this.#allow(access, 'webhooks:write');
    this.#checkUrl(input.url);
    const existing = await repo.listEndpoints(this.deps.db, access.workspace.id);
    if (existing.length >= MAX_ENDPOINTS)
      throw new BadRequestError(`A workspace has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`, {
        code: 'too_many_endpoints',
      });
    const stamp = this.deps.clock.now().toISOString();
    const secret = newSecret();
    const row: WebhookEndpointsTable = {
      id: newId(),
      workspace_id: access.workspace.id,
      url: input.url,
      description: input.description,
      event_types: JSON.stringify(input.eventTypes),
      enabled: input.enabled ? 1 : 0,
      disabled_reason: null,
      secret: this.deps.secretBox.seal(secret),
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      created_at: stamp,
      updated_at: stamp,
    };
    await repo.insertEndpoint(this.deps.db, row);
    return { ...toEndpoint(row, this.deps.clock.now()), secret };
  }

  async list(access: WorkspaceAccess): Promise<{ endpoints: Endpoint[] }> {
    this.#allow(access, 'webhooks:read');
    const now = this.deps.clock.now();
    return { endpoints: (await repo.listEndpoints(this.deps.db, access.workspace.id)).map((row) => toEndpoint(row, now)) };
  }

  async get(access: WorkspaceAccess, id: string): Promise<Endpoint> {
    this.#allow(access, 'webhooks:read');
    return toEndpoint(await this.#find(access, id), this.deps.clock.now());
  }

  async update(access: WorkspaceAccess, id: string, input: z.output<typeof updateWebhookBody>): Promise<Endpoint> {
    this.#allow(access, 'webhooks:write');
    const row = await this.#find(access, id);
    if (input.url !== undefined) this.#checkUrl(input.url);
    const changes: Partial<WebhookEndpointsTable> = { updated_at: this.deps.clock.now().toISOString() };
    if (input.url !== undefined) changes.url = input.url;
    if (input.description !== undefined) changes.description = input.description;
    if (input.eventTypes !== undefined) changes.event_types = JSON.stringify(input.eventTypes);
    if (input.enabled !== undefined) Object.assign(changes, { enabled: input.enabled ? 1 : 0, disabled_reason: null, failing_since: null });
    await repo.updateEndpoint(this.deps.db, access.workspace.id, id, changes);
    return toEndpoint({ ...row, ...changes }, this.deps.clock.now());
  }

  async delete(access: WorkspaceAccess, id: string): Promise<{ deleted: true }> {
    this.#allow(access, 'webhooks:write');
    const result = await repo.deleteEndpoint(this.deps.db, access.workspace.id, id);
    if (Number(result.numDeletedRows) !== 1) throw new NotFoundError(`No webhook endpoint ${id} in this workspace.`);
    return { deleted: true };
  }

  /** A new secret, shown once; the previous one keeps signing deliveries beside it for `ROTATION_GRACE_MS`. */
  async rotateSecret(access: WorkspaceAccess, id: string): Promise<EndpointWithSecret> {
    this.#allow(access, 'webhooks:write');
    const row = await this.#find(access, id);
    const now = this.deps.clock.now();
    const secret = newSecret();
    const changes = {
      secret: this.deps.secretBox.seal(secret),
      previous_secret: row.secret,
      previous_secret_until: new Date(now.getTime() + ROTATION_GRACE_MS).toISOString(),
      updated_at: now.toISOString(),
    };
    await repo.updateEndpoint(this.deps.db, access.workspace.id, id, changes);
    return { ...toEndpoint({ ...row, ...changes }, now), secret };
  }

  /** Queues a `webhook.test` event for this endpoint alone (it must be enabled). Each test event is its own subject: none waits for another. */
  async sendTest(access: WorkspaceAccess, id: string): Promise<{ eventId: string }> {
    this.#allow(access, 'webhooks:write');
    const row = await this.#find(access, id);
    if (Number(row.enabled) !== 1) throw new BadRequestError(`Webhook endpoint ${id} is disabled; enable it to send a test event.`);
    const [eventId] = await this.deps.db
      .transaction()
      .execute((trx) =>
        this.deps.webhookOutbox.record(trx, [
          { workspaceId: access.workspace.id, type: 'webhook.test', subjectId: newId(), details: { endpointId: id } },
        ]),
      );
    if (!eventId) throw new BadRequestError(`Webhook endpoint ${id} is disabled; enable it to send a test event.`);
    return { eventId };
  }

  async listDeliveries(access: WorkspaceAccess, id: string, limit: number): Promise<{ deliveries: Delivery[] }> {
    this.#allow(access, 'webhooks:read');
    await this.#find(access, id);
    const rows = await repo.listDeliveries(this.deps.db, id, limit);
    return { deliveries: await this.#withAttempts(rows) };
  }

  /**
   * Sends a settled delivery again now (one more attempt; retried on failure only while its
   * attempts last). The event's row is locked first, so a purge running meanwhile either deleted
   * it before (404: the delivery is gone) or leaves it alone (it is pending again).
   */
  async redeliver(access: WorkspaceAccess, id: string, deliveryId: string): Promise<Delivery> {
    this.#allow(access, 'webhooks:write');
    await this.#find(access, id);
    const gone = () =>
      new NotFoundError(
        `No delivery ${deliveryId} of webhook endpoint ${id}: it does not exist, or it was purged (an event is kept 30 days after its deliveries settled).`,
      );
    const row = await this.deps.db.transaction().execute(async (trx) => {
      const found = await repo.findDelivery(trx, id, deliveryId);
      if (!found || !(await lockWebhookEvent(trx, found.event_id))) return null;
      if (!(await repo.requeueDelivery(trx, deliveryId, this.deps.clock.now().toISOString()))) {
        // Read again under the lock: the state it is in now, not the one before it.
        const now = await repo.findDelivery(trx, id, deliveryId);
        if (!now) return null;
        throw new ConflictError(`Delivery ${deliveryId} is ${now.state}; only a delivery that succeeded or failed can be sent again.`, {
          code: 'delivery_in_progress',
        });
      }
      return repo.findDelivery(trx, id, deliveryId);
    });
    if (!row) throw gone();
    const [delivery] = await this.#withAttempts([row]);
    return delivery!;
  }

  /** Sends again, now, every failed delivery to the endpoint of an event since `since`; how many. */
  async replayFailed(access: WorkspaceAccess, id: string, since: string): Promise<{ requeued: number }> {
    this.#allow(access, 'webhooks:write');
    await this.#find(access, id);
    const at = this.deps.clock.now().toISOString();
    return { requeued: await repo.requeueFailedSince(this.deps.db, id, new Date(since).toISOString(), at) };
  }

  async #withAttempts(rows: Awaited<ReturnType<typeof repo.listDeliveries>>): Promise<Delivery[]> {
    const attempts = await repo.listAttempts(
      this.deps.db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      webhookId: `msg_${row.event_id}`,
      type: row.type,
      state: row.state,
      attempts: Number(row.attempts),
      nextAttemptAt: row.next_attempt_at,
      lastStatus: row.last_status === null ? null : Number(row.last_status),
      lastError: row.last_error,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      attemptLog: attempts
        .filter((attempt) => attempt.delivery_id === row.id)
        .map((attempt) => ({
          attempt: Number(attempt.attempt),
          at: attempt.at,
          status: attempt.status === null ? null : Number(attempt.status),
          durationMs: Number(attempt.duration_ms),
          error: attempt.error,
          response: attempt.response,
        })),
    }));
  }
}
