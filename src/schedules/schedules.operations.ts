import { authErrors, conflictErrors, notFoundErrors } from '../http/common.schema.ts';
import { operation, READ_ONLY, writes } from '../operations/operation.ts';
import { channelScheduleParams, findSlotParams, findSlotResponse, scheduleBody, scheduleSchema } from './schedules.schema.ts';
import type { Schedule } from './schedules.service.ts';

const DAY_ORDER = 'Slots are in week order (Sunday first), each once.';

/** A schedule in one line for an MCP client. */
function describeSchedule(o: Schedule): string {
  const slots = o.slots.map((slot) => `${slot.day} ${slot.time}`).join(', ');
  return `Schedule (${o.source}) in ${o.timeZone}: ${o.slots.length ? slots : 'no slots'}.`;
}

const scheduleMcp = { output: scheduleSchema, summary: describeSchedule };

export const getDefaultSchedule = operation({
  name: 'get_default_schedule',
  scope: 'channels:read',
  call: (services, access) => services.schedules.workspaceDefault(access),
  rest: {
    method: 'GET',
    url: '/schedule',
    tags: ['Schedules'],
    summary: "Read the workspace's default posting schedule",
    description: `The weekly slots a channel without a schedule of its own queues posts into. Until the workspace sets one, Herald's built-in default applies (\`source: "default"\`): every day at 09:00, 12:00 and 17:00 UTC. ${DAY_ORDER}`,
    response: scheduleSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'Read the default posting schedule',
    description:
      "The workspace's default weekly posting slots (day of week and local time in an IANA time zone), used by every channel without a schedule of its own when a post is queued.",
    annotations: READ_ONLY,
    ...scheduleMcp,
  },
});

export const setDefaultSchedule = operation({
  name: 'set_default_schedule',
  scope: 'channels:write',
  body: scheduleBody,
  call: (services, access, input) => services.schedules.setWorkspaceDefault(access, { timeZone: input.timeZone, slots: input.slots }),
  rest: {
    method: 'PUT',
    url: '/schedule',
    tags: ['Schedules'],
    summary: "Set the workspace's default posting schedule",
    description: `Replaces the default schedule; posts already scheduled keep their dates. An unknown time zone is a 400 \`invalid_time_zone\`; a key limited to certain channels is refused (403 \`channel_limited_key\`). ${DAY_ORDER}`,
    response: scheduleSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'Set the default posting schedule',
    description:
      "Replaces the workspace's default weekly posting slots (used by channels without a schedule of their own). Posts already scheduled keep their dates.",
    annotations: writes({ idempotent: true }),
    ...scheduleMcp,
  },
});

export const getChannelSchedule = operation({
  name: 'get_channel_schedule',
  scope: 'channels:read',
  params: channelScheduleParams,
  call: (services, access, { id }) => services.schedules.forChannel(access, id),
  rest: {
    method: 'GET',
    url: '/integrations/:id/schedule',
    tags: ['Schedules'],
    summary: "Read a channel's posting schedule",
    description: `The schedule the channel's queue uses: its own (\`source: "channel"\`), else the workspace's default (\`workspace\`), else the built-in one (\`default\`). ${DAY_ORDER}`,
    response: scheduleSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: "Read a channel's posting schedule",
    description:
      "The weekly posting slots a channel's queue uses (its own, or the workspace default it inherits), with the IANA time zone they are in.",
    annotations: READ_ONLY,
    ...scheduleMcp,
  },
});

export const setChannelSchedule = operation({
  name: 'set_channel_schedule',
  scope: 'channels:write',
  params: channelScheduleParams,
  body: scheduleBody,
  call: (services, access, { id, timeZone, slots }) => services.schedules.setForChannel(access, id, { timeZone, slots }),
  rest: {
    method: 'PUT',
    url: '/integrations/:id/schedule',
    tags: ['Schedules'],
    summary: "Set a channel's posting schedule",
    description: `Gives the channel a schedule of its own, replacing any it had; posts already scheduled keep their dates. An unknown time zone is a 400 \`invalid_time_zone\`. ${DAY_ORDER}`,
    response: scheduleSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: "Set a channel's posting schedule",
    description:
      'Gives a channel its own weekly posting slots (day of week and HH:MM local time in an IANA time zone); queued posts (create_post with type "queue") take its next free slot.',
    annotations: writes({ idempotent: true }),
    ...scheduleMcp,
  },
});

export const clearChannelSchedule = operation({
  name: 'clear_channel_schedule',
  scope: 'channels:write',
  params: channelScheduleParams,
  call: (services, access, { id }) => services.schedules.clearForChannel(access, id),
  rest: {
    method: 'DELETE',
    url: '/integrations/:id/schedule',
    tags: ['Schedules'],
    summary: "Remove a channel's own posting schedule",
    description: "The channel uses the workspace's default schedule again; the answer is that schedule.",
    response: scheduleSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: "Remove a channel's own posting schedule",
    description: "Removes a channel's own weekly posting slots, so that it uses the workspace's default schedule again.",
    annotations: writes({ destructive: true, idempotent: true }),
    ...scheduleMcp,
  },
});

export const findSlot = operation({
  name: 'find_slot',
  scope: 'posts:read',
  params: findSlotParams,
  call: (services, access, { channelId }) => services.schedules.findSlot(access, channelId),
  rest: {
    method: 'GET',
    url: '/find-slot/:channelId',
    tags: ['Schedules'],
    summary: "A channel's next free slot",
    description:
      'The first slot of the channel\'s schedule after now that none of its posts holds (drafts do not hold slots): where POST /posts with `type: "queue"` would put a post at this moment. Read-only: another request may take the slot before yours; the queue itself never gives one slot twice. 409 `no_free_slot` when the schedule has no free slot within a year.',
    response: findSlotResponse,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Find the next free slot',
    description:
      'The next free posting slot of a channel (ISO 8601 UTC), from its schedule: where a post created with type "queue" would go now.',
    annotations: READ_ONLY,
    output: findSlotResponse,
    summary: (o) => `The next free slot is ${o.date}.`,
  },
});
