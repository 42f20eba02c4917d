import type { Db, Executor } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import * as repo from './webhooks.repository.ts';
import type { WebhookEventType } from './webhooks.table.ts';

/** An event as the change that causes it describes it: what happened to which object, and what only that moment knows. */
export type EventRecord = {
  workspaceId: string;
  type: WebhookEventType;
  subjectId: string;
  details?: Record<string, unknown>;
};

let counter = 0;

/** A key that orders a process's events as written (time first, so events of different processes interleave by time). */
function position(stamp: string): string {
  counter = (counter + 1) % 1e12;
  return `${stamp}:${String(counter).padStart(12, '0')}`;
}

/**
 * The outbox's writer: every change that emits an event writes it here, inside the change's own
 * transaction, so an event exists exactly when its change was committed. Only workspaces with an
 * enabled endpoint get rows (one indexed read of the endpoints per transaction); what each event
 * looks like on the wire is rendered later, once, by the delivery worker (see `WebhookDelivery`).
 */
export class WebhookOutbox {
  readonly #listeners = new Set<() => void>();

  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /**
   * Writes `events` inside `trx` (the caller's transaction); the ids of those written (the others'
   * workspaces have no enabled endpoint). With `listening`, the caller has read already that their
   * workspaces have one (the publishing claim does, in its own statement): nothing is read again. An
   * endpoint disabled since then gets no delivery of them (dispatch creates deliveries for the
   * endpoints enabled when it runs).
   */
  async record(trx: Executor, events: readonly EventRecord[], options: { listening?: true } = {}): Promise<string[]> {
    if (events.length === 0) return [];
    const workspaces = [...new Set(events.map((event) => event.workspaceId))];
    const listening = options.listening ? new Set(workspaces) : await repo.workspacesWithEnabledEndpoints(trx, workspaces);
    if (listening.size === 0) return [];
    const stamp = this.deps.clock.now().toISOString();
    const rows = events
      .filter((event) => listening.has(event.workspaceId))
      .map((event) => ({
        id: newId(),
        workspace_id: event.workspaceId,
        type: event.type,
        subject_id: event.subjectId,
        details: JSON.stringify(event.details ?? {}),
        position: position(stamp),
        dispatched: 0,
        body: null,
        created_at: stamp,
      }));
    await repo.insertEvents(trx, rows);
    // After the caller's commit, most likely: the worker looks now, and its timer covers a later commit.
    setImmediate(() => this.#listeners.forEach((listener) => listener()));
    return rows.map((row) => row.id);
  }

  /** Writes `events` in a transaction of their own when `db` is not one already (a change made by one statement). */
  async recordWith<T>(db: Executor, change: (trx: Executor) => Promise<T>, events: (result: T) => readonly EventRecord[]): Promise<T> {
    const run = async (trx: Executor) => {
      const result = await change(trx);
      await this.record(trx, events(result));
      return result;
    };
    return db.isTransaction ? run(db) : (db as Db).transaction().execute(run);
  }

  /** Called (soon after) whenever this process wrote events. */
  onRecorded(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
