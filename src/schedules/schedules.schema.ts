import * as z from 'zod';
import { WEEKDAYS } from './slots.ts';

export const slotSchema = z
  .object({
    day: z.enum(WEEKDAYS).describe('The day of the week, in English, lower case.'),
    time: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'expected a local time HH:MM (24-hour), e.g. "09:00".' })
      .describe("The local time in the schedule's time zone, HH:MM (24-hour)."),
  })
  .meta({ id: 'PostingSlot' });

const scheduleFields = {
  timeZone: z
    .string()
    .min(1)
    .max(64)
    .describe('An IANA time zone name (e.g. `Europe/Paris`, `Australia/Sydney`, `UTC`); slots are local times there.'),
  slots: z
    .array(slotSchema)
    .max(500)
    .describe(
      'The weekly slots. Across a daylight-saving change a slot keeps its local time. A slot that does not exist on a day (the clocks spring forward over it) is moved forward by the gap (02:30 becomes 03:30); one that occurs twice (the clocks fall back) is used once, at its first occurrence. Slots that fall on the same instant are one slot. `[]`: nothing is queued on the channel (POST /posts with `type: "queue"` answers 409 `no_free_slot`).',
    ),
};

export const scheduleBody = z.object(scheduleFields).meta({
  id: 'SetPostingSchedule',
  examples: [
    {
      timeZone: 'Europe/Paris',
      slots: [
        { day: 'monday', time: '09:00' },
        { day: 'monday', time: '17:30' },
        { day: 'wednesday', time: '12:00' },
      ],
    },
  ],
});

export const scheduleSchema = z
  .object({
    ...scheduleFields,
    source: z
      .enum(['channel', 'workspace', 'default'])
      .describe(
        "Where the schedule comes from: the channel's own, the workspace's default, or Herald's built-in default (every day at 09:00, 12:00 and 17:00 UTC) when the workspace has set none.",
      ),
    updatedAt: z.string().nullable().describe('When it was last set (null for the built-in default).'),
  })
  .meta({ id: 'PostingSchedule' });

export const findSlotResponse = z
  .object({ date: z.string().describe("The channel's next free slot, ISO 8601 UTC.") })
  .meta({ id: 'FreeSlot' });

export const channelScheduleParams = z.object({ id: z.string().min(1).max(100).describe('The channel ID.') });
export const findSlotParams = z.object({ channelId: z.string().min(1).max(100).describe('The channel ID.') });
