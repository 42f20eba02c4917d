import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.ts';
import { lockWebhookEndpoint, skippingLockedRows } from '../db/sql.ts';
import type {
  DeliveryState,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from './webhooks.table.ts';

export async function workspacesWithEnabledEndpoints(db: Executor, workspaceIds: string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select('workspace_id')
    .distinct()
    .where('workspace_id', 'in', workspaceIds)
    .where('enabled', '=', 1)
    .execute();
  return new Set(rows.map((row) => row.workspace_id));
}

export function insertEvents(db: Executor, rows: WebhookEventsTable[]) {
  return db.insertInto('webhook_events').values(rows).execute();
}

export function insertEndpoint(db: Executor, row: WebhookEndpointsTable) {
  return db.insertInto('webhook_endpoints').values(row).execute();
}

export function findEndpoint(db: Executor, workspaceId: string, id: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function findEndpointById(db: Executor, id: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listEndpoints(db: Executor, workspaceId: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function listEnabledEndpoints(db: Executor, workspaceIds: string[]) {
  if (workspaceIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', 'in', workspaceIds).where('enabled', '=', 1).execute();
}

export function updateEndpoint(db: Executor, workspaceId: string, id: string, changes: Partial<WebhookEndpointsTable>) {
  return db.updateTable('webhook_endpoints').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function deleteEndpoint(db: Executor, workspaceId: string, id: string) {
  return db.deleteFrom('webhook_endpoints').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Marks an endpoint failing from `at` on, unless it already is. */
export function markFailing(db: Executor, id: string, at: string) {
  return db.updateTable('webhook_endpoints').set({ failing_since: at }).where('id', '=', id).where('failing_since', 'is', null).execute();
}

export function markHealthy(db: Executor, id: string) {
  return db
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .execute();
}

/** Disables an endpoint that has failed since `failingBy` at the latest; false when it was enabled no longer, or succeeded since. */
export async function disableFailing(db: Executor, id: string, failingBy: string, stamp: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: 'failing', updated_at: stamp })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where('failing_since', '<=', failingBy)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function listUndispatchedEvents(db: Executor, limit: number) {
  return db.selectFrom('webhook_events').selectAll().where('dispatched', '=', 0).orderBy('position').limit(limit).execute();
}

/** The events a purge may delete: dispatched, written before `before`, none of whose deliveries is pending, sending or settled since `before`. */
function purgeable(db: Executor, before: string) {
  return db
    .selectFrom('webhook_events as e')
    .select('e.id')
    .where('e.dispatched', '=', 1)
    .where('e.position', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.event_id', '=', 'e.id')
            .where((eb) => eb.or([eb('d.state', 'in', ['pending', 'sending']), eb('d.updated_at', '>=', before)])),
        ),
      ),
    );
}

/**
 * Deletes, oldest first, at most `limit` purgeable events; their deliveries and attempts go by
 * cascade. The candidates are locked first (PostgreSQL; skipping rows a redelivery holds), then
 * deleted by a second statement that decides again on what is committed by then: a delivery sent
 * again meanwhile keeps its event. How many it deleted.
 */
export async function purgeSettledEvents(db: Db, before: string, limit: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const candidates = await skippingLockedRows(trx, purgeable(trx, before).orderBy('e.position').limit(limit), 'e').execute();
    if (candidates.length === 0) return 0;
    const result = await trx
      .deleteFrom('webhook_events')
      .where(
        'id',
        'in',
        purgeable(trx, before).where(
          'e.id',
          'in',
          candidates.map((row) => row.id),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

export function findEvent(db: Executor, id: string) {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Sets each event's body and marks it dispatched, unless another worker did; the ids this call dispatched. */
export async function markDispatched(db: Executor, bodies: ReadonlyMap<string, string>): Promise<Set<string>> {
  if (bodies.size === 0) return new Set();
  const ids = [...bodies.keys()];
  const rows = await db
    .updateTable('webhook_events')
    .set({
      dispatched: 1,
      body: sql<string>`case ${sql.join(
        ids.map((id) => sql`when ${sql.ref('id')} = ${id} then ${bodies.get(id)!}`),
        sql` `,
      )} end`,
    })
    .where('id', 'in', ids)
    .where('dispatched', '=', 0)
    .returning('id')
    .execute();
  return new Set(rows.map((row) => row.id));
}

export function insertDeliveries(db: Executor, rows: WebhookDeliveriesTable[]) {
  return db.insertInto('webhook_deliveries').values(rows).execute();
}

/**
 * Deliveries to attempt now, earliest first (of one endpoint, or of all): pending ones due by
 * `now`, and ones left sending past their lease (a worker that died). One waits while an earlier
 * event about the same object is still pending or sending to the same endpoint, so an endpoint
 * receives those in order.
 */
export async function listDueDeliveries(db: Executor, now: string, limit: number, endpointId?: string) {
  // Two reads, each served in order by an index (an OR of the two would read every pending delivery).
  const due = (state: DeliveryState) => {
    let query = db
      .selectFrom('webhook_deliveries as d')
      .select(['d.id', 'd.state', 'd.claimed_at', 'd.endpoint_id', 'd.next_attempt_at'])
      .where('d.state', '=', state)
      .where(state === 'pending' ? 'd.next_attempt_at' : 'd.lease_until', state === 'pending' ? '<=' : '<', now)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as e')
              .select('e.id')
              .whereRef('e.endpoint_id', '=', 'd.endpoint_id')
              .whereRef('e.subject_id', '=', 'd.subject_id')
              .where('e.state', 'in', ['pending', 'sending'])
              .whereRef('e.position', '<', 'd.position'),
          ),
        ),
      );
    if (endpointId !== undefined) query = query.where('d.endpoint_id', '=', endpointId);
    return query.orderBy('d.next_attempt_at').limit(limit).execute();
  };
  const [pending, lapsed] = await Promise.all([due('pending'), due('sending')]);
  return [...pending, ...lapsed].sort((x, y) => (x.next_attempt_at ?? '').localeCompare(y.next_attempt_at ?? '')).slice(0, limit);
}

/**
 * Claims up to `cap` of an endpoint's due deliveries (see `listDueDeliveries`), fewer by those
 * being sent under a live lease by any process: the claims' own leases are the endpoint's slots.
 * The endpoint's row is locked first, so processes claiming for one endpoint take turns and the
 * count holds until the claims commit. The claimed deliveries with their event and endpoint.
 */
export async function claimDueDeliveries(db: Db, endpointId: string, claim: { stamp: string; leaseUntil: string }, cap: number) {
  return db.transaction().execute(async (trx) => {
    await lockWebhookEndpoint(trx, endpointId);
    const { sending } = await trx
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll().as('sending'))
      .where('state', '=', 'sending')
      .where('endpoint_id', '=', endpointId)
      .where('lease_until', '>=', claim.stamp)
      .executeTakeFirstOrThrow();
    const slots = cap - Number(sending);
    if (slots <= 0) return [];
    const due = await listDueDeliveries(trx, claim.stamp, slots, endpointId);
    if (due.length === 0) return [];
    // Each as it was found: pending and due, or left sending past its lease.
    const claimed = await trx
      .updateTable('webhook_deliveries')
      .set({ state: 'sending', claimed_at: claim.stamp, lease_until: claim.leaseUntil, updated_at: claim.stamp })
      .where(
        'id',
        'in',
        due.map((delivery) => delivery.id),
      )
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'pending'), eb('next_attempt_at', '<=', claim.stamp)]),
          eb.and([eb('state', '=', 'sending'), eb('lease_until', '<', claim.stamp)]),
        ]),
      )
      .returning('id')
      .execute();
    return claimed.length === 0
      ? []
      : findClaimedDeliveries(
          trx,
          claimed.map((row) => row.id),
        );
  });
}

/** Claims a delivery found in `state` (with `claimedAt`): sending from `stamp` until `leaseUntil`; true when this call claimed it. */
export async function claimDelivery(
  db: Executor,
  id: string,
  from: { state: DeliveryState; claimedAt: string | null },
  claim: { stamp: string; leaseUntil: string },
): Promise<boolean> {
  let query = db
    .updateTable('webhook_deliveries')
    .set({ state: 'sending', claimed_at: claim.stamp, lease_until: claim.leaseUntil, updated_at: claim.stamp })
    .where('id', '=', id)
    .where('state', '=', from.state);
  query = from.claimedAt === null ? query.where('claimed_at', 'is', null) : query.where('claimed_at', '=', from.claimedAt);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Claimed deliveries with their event and endpoint. */
export function findClaimedDeliveries(db: Executor, ids: string[]) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .innerJoin('webhook_endpoints as p', 'p.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.event_id',
      'd.endpoint_id',
      'd.workspace_id',
      'd.attempts',
      'd.first_attempt_at',
      'd.claimed_at',
      'v.body',
      'v.type',
      'p.url',
      'p.enabled',
      'p.secret',
      'p.previous_secret',
      'p.previous_secret_until',
    ])
    .where('d.id', 'in', ids)
    .orderBy('d.position')
    .execute();
}

export type ClaimedDelivery = Awaited<ReturnType<typeof findClaimedDeliveries>>[number];

/** Settles a delivery still held under `claimedAt`; false when the claim was lost. */
export async function settleDelivery(db: Executor, id: string, claimedAt: string, changes: Partial<WebhookDeliveriesTable>) {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, claimed_at: null, lease_until: null })
    .where('id', '=', id)
    .where('state', '=', 'sending')
    .where('claimed_at', '=', claimedAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function insertAttempts(db: Executor, rows: WebhookAttemptsTable[]) {
  if (rows.length === 0) return Promise.resolve([]);
  return db.insertInto('webhook_attempts').values(rows).execute();
}

/** An endpoint's deliveries with their event's type. */
function selectDeliveriesOf(db: Executor, endpointId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
    .selectAll('d')
    .select(['v.type'])
    .where('d.endpoint_id', '=', endpointId);
}

/** An endpoint's deliveries, newest first, with their event's type. */
export function listDeliveries(db: Executor, endpointId: string, limit: number) {
  return selectDeliveriesOf(db, endpointId).orderBy('d.position', 'desc').limit(limit).execute();
}

export function findDelivery(db: Executor, endpointId: string, id: string) {
  return selectDeliveriesOf(db, endpointId).where('d.id', '=', id).executeTakeFirst();
}

export function listAttempts(db: Executor, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('attempt').execute();
}

/** Puts a settled delivery back in the queue, due at `at`; false while it is pending or sending. */
export async function requeueDelivery(db: Executor, id: string, at: string) {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', next_attempt_at: at, updated_at: at })
    .where('id', '=', id)
    .where('state', 'in', ['succeeded', 'failed'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Puts an endpoint's failed deliveries of events since `since` back in the queue, due at `at`; how many. */
export async function requeueFailedSince(db: Executor, endpointId: string, since: string, at: string): Promise<number> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', next_attempt_at: at, updated_at: at })
    .where('endpoint_id', '=', endpointId)
    .where('state', '=', 'failed')
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
