import type { z } from 'zod';
import { requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import { usableChannel, type ChannelsService } from '../channels/channels.service.ts';
import type { Db } from '../db/database.ts';
import { BadRequestError, ForbiddenError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { parseJsonOr } from '../lib/json.ts';
import { noFreeSlot, type PostTransitions } from '../posts/post-transitions.ts';
import * as repo from './schedules.repository.ts';
import type { scheduleBody, scheduleSchema } from './schedules.schema.ts';
import { canonicalTimeZone, WEEKDAYS, type Slot, type WeeklySchedule } from './slots.ts';
import type { PostingSchedulesTable } from './schedules.table.ts';

export type ScheduleInput = z.infer<typeof scheduleBody>;
export type Schedule = z.infer<typeof scheduleSchema>;

/** Times of every day in the built-in default schedule, in UTC: what a workspace queues into until it sets its own. */
export const DEFAULT_SLOT_TIMES = ['09:00', '12:00', '17:00'] as const;

/** The schedule of a workspace that has set none. */
export const DEFAULT_SCHEDULE: WeeklySchedule = {
  timeZone: 'UTC',
  slots: WEEKDAYS.flatMap((day) => DEFAULT_SLOT_TIMES.map((time) => ({ day, time }))),
};

function present(row: PostingSchedulesTable | undefined, source: 'channel' | 'workspace'): Schedule {
  if (!row) return { ...DEFAULT_SCHEDULE, source: 'default', updatedAt: null };
  return { timeZone: row.time_zone, slots: parseJsonOr<Slot[]>(row.slots, []), source, updatedAt: row.updated_at };
}

/** Slots in week order (Sunday first), then by time, each once. */
function ordered(slots: Slot[]): Slot[] {
  const unique = new Map(slots.map((slot) => [`${WEEKDAYS.indexOf(slot.day)}-${slot.time}`, slot]));
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, slot]) => slot);
}

/**
 * Weekly posting schedules: each channel's own, the workspace's default that a channel without
 * one uses, and the next free slot they give (the queue of POST /posts takes it through
 * `PostTransitions.takeSlots`).
 */
export class SchedulesService {
  constructor(private readonly deps: { db: Db; clock: Clock; channels: ChannelsService; transitions: PostTransitions }) {}

  /** A channel's schedule as the queue uses it: its own, else the workspace's default, else the built-in one. */
  async effective(workspaceId: string, channelId: string): Promise<Schedule> {
    const rows = await repo.findSchedules(this.deps.db, workspaceId, channelId);
    const own = rows.find((row) => row.channel_id === channelId && channelId !== repo.WORKSPACE_DEFAULT);
    if (own) return present(own, 'channel');
    return present(
      rows.find((row) => row.channel_id === repo.WORKSPACE_DEFAULT),
      'workspace',
    );
  }

  /** The workspace's default schedule. */
  async workspaceDefault(access: WorkspaceAccess): Promise<Schedule> {
    requireScope(access, 'channels:read');
    return this.effective(access.workspace.id, repo.WORKSPACE_DEFAULT);
  }

  /** Sets the workspace's default schedule: not with a key limited to certain channels (it applies to all of them). */
  async setWorkspaceDefault(access: WorkspaceAccess, input: ScheduleInput): Promise<Schedule> {
    requireScope(access, 'channels:write');
    if (access.channelIds !== null) {
      throw new ForbiddenError(
        "A key limited to certain channels cannot set the workspace's default schedule; set each channel's own schedule, or use a key without a channel limit.",
        { code: 'channel_limited_key' },
      );
    }
    await this.#store(access.workspace.id, repo.WORKSPACE_DEFAULT, input);
    return this.workspaceDefault(access);
  }

  /** A channel's schedule (its own or the one it uses). */
  async forChannel(access: WorkspaceAccess, channelId: string): Promise<Schedule> {
    usableChannel(access, channelId, 'channels:read');
    await this.deps.channels.get(access.workspace.id, channelId);
    return this.effective(access.workspace.id, channelId);
  }

  /** Sets a channel's own schedule. */
  async setForChannel(access: WorkspaceAccess, channelId: string, input: ScheduleInput): Promise<Schedule> {
    usableChannel(access, channelId, 'channels:write');
    await this.deps.channels.get(access.workspace.id, channelId);
    await this.#store(access.workspace.id, channelId, input);
    return this.effective(access.workspace.id, channelId);
  }

  /** Removes a channel's own schedule: it uses the workspace's default again. */
  async clearForChannel(access: WorkspaceAccess, channelId: string): Promise<Schedule> {
    usableChannel(access, channelId, 'channels:write');
    await this.deps.channels.get(access.workspace.id, channelId);
    await repo.deleteSchedule(this.deps.db, access.workspace.id, channelId);
    return this.effective(access.workspace.id, channelId);
  }

  /** The channel's next free slot after now (read-only; the queue takes one under a lock). */
  async findSlot(access: WorkspaceAccess, channelId: string): Promise<{ date: string }> {
    requireScope(access, 'posts:read');
    usableChannel(access, channelId, 'channels:read');
    await this.deps.channels.get(access.workspace.id, channelId);
    const schedule = await this.effective(access.workspace.id, channelId);
    const date = await this.deps.transitions.nextFreeSlot(this.deps.db, [channelId], schedule, this.deps.clock.now());
    if (date === null) throw noFreeSlot([channelId]);
    return { date };
  }

  async #store(workspaceId: string, channelId: string, input: ScheduleInput): Promise<void> {
    const timeZone = canonicalTimeZone(input.timeZone);
    if (timeZone === null) {
      throw new BadRequestError(`timeZone: "${input.timeZone}" is not an IANA time zone this server knows (e.g. "Europe/Paris", "UTC").`, {
        code: 'invalid_time_zone',
      });
    }
    await repo.upsertSchedule(this.deps.db, {
      workspace_id: workspaceId,
      channel_id: channelId,
      time_zone: timeZone,
      slots: JSON.stringify(ordered(input.slots)),
      updated_at: this.deps.clock.now().toISOString(),
    });
  }
}
