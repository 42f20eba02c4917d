import * as z from 'zod';
import { count, wholeNumber } from '../http/common.schema.ts';
import { SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from './webhooks.table.ts';

export const DESCRIPTION_MAX = 500;
export const DELIVERIES_PAGE_MAX = 100;

const eventTypes = z
  .array(z.enum(SUBSCRIBABLE_EVENT_TYPES))
  .min(1)
  .max(SUBSCRIBABLE_EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'each event type at most once')
  .describe(`The events sent to the endpoint: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}.`);

const url = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .describe(
    'Where deliveries are POSTed. https, except a loopback address when the server allows loopback (local development); internal addresses are refused.',
  );

const description = z.string().max(DESCRIPTION_MAX).describe(`A note for people, at most ${DESCRIPTION_MAX} characters.`);

export const webhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    eventTypes: z.array(z.enum(SUBSCRIBABLE_EVENT_TYPES)),
    enabled: z.boolean(),
    disabledReason: z
      .enum(['failing'])
      .nullable()
      .describe('`failing` when Herald disabled the endpoint after about a day of failed deliveries; null otherwise.'),
    failingSince: z.string().nullable().describe('When deliveries started failing, if the last one failed.'),
    previousSecretValidUntil: z
      .string()
      .nullable()
      .describe('After a rotation, until when deliveries are also signed with the previous secret.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({
    secret: z.string().describe('The signing secret (whsec_…), shown once: verify deliveries with any Standard Webhooks library.'),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const webhookEndpointListSchema = z.object({ endpoints: z.array(webhookEndpointSchema) }).meta({ id: 'WebhookEndpointList' });

export const createWebhookBody = z.object({
  url,
  description: description.default(''),
  eventTypes: eventTypes,
  enabled: z.boolean().default(true),
});

export const updateWebhookBody = z.object({
  url: url.optional(),
  description: description.optional(),
  eventTypes: eventTypes.optional(),
  enabled: z.boolean().optional().describe('true enables an endpoint again (also one Herald disabled); false stops deliveries.'),
});

export const webhookParams = z.object({ id: z.string().min(1).max(100).describe('The endpoint ID.') });
export const deliveryParams = webhookParams.extend({ deliveryId: z.string().min(1).max(100).describe('The delivery ID.') });
export const deliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(DELIVERIES_PAGE_MAX).default(20).describe('How many deliveries, newest first (at most 100).'),
});

export const webhookAttemptSchema = z
  .object({
    attempt: count(),
    at: z.string(),
    status: wholeNumber(100, 599)
      .nullable()
      .describe("The endpoint's HTTP status; null when no answer came (timeout, refused, connection error)."),
    durationMs: count(),
    error: z.string().nullable(),
    response: z.string().nullable().describe("The start of the endpoint's answer (at most 1,024 characters)."),
  })
  .meta({ id: 'WebhookAttempt' });

export const webhookDeliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string(),
    webhookId: z.string().describe('The `webhook-id` header of every attempt: the same on every retry, to deduplicate on.'),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    state: z.enum(['pending', 'sending', 'succeeded', 'failed']),
    attempts: count(),
    nextAttemptAt: z.string().nullable(),
    lastStatus: wholeNumber(100, 599).nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    attemptLog: z.array(webhookAttemptSchema),
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookDeliveryListSchema = z.object({ deliveries: z.array(webhookDeliverySchema) }).meta({ id: 'WebhookDeliveryList' });
export const replayBody = z.object({
  since: z.iso.datetime({ offset: true }).describe('Every failed delivery of an event since this instant (ISO 8601) is sent again.'),
});
export const replaySchema = z
  .object({ requeued: count().describe('How many deliveries were queued again.') })
  .meta({ id: 'WebhookReplay' });
export const webhookDeletedSchema = z.object({ deleted: z.literal(true) });
