import * as z from 'zod';
import { authErrors, conflictErrors, notFoundErrors } from '../http/common.schema.ts';
import { listSummary, operation, plural, READ_ONLY, writes } from '../operations/operation.ts';
import {
  createWebhookBody,
  deliveriesQuery,
  deliveryParams,
  replayBody,
  replaySchema,
  updateWebhookBody,
  webhookDeletedSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
  webhookParams,
} from './webhooks.schema.ts';

const tags = ['Webhooks'];

export const createWebhook = operation({
  name: 'create_webhook',
  scope: 'webhooks:write',
  body: createWebhookBody,
  call: (services, access, input) => services.webhooks.create(access, input),
  rest: {
    method: 'POST',
    url: '/webhooks',
    tags,
    summary: 'Create a webhook endpoint',
    description:
      'Herald POSTs each subscribed event to the URL, signed by the Standard Webhooks specification (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The signing secret is in this answer only: keep it. At most 20 endpoints per workspace.',
    response: webhookEndpointWithSecretSchema,
    status: 201,
    errors: authErrors,
  },
  mcp: {
    title: 'Create a webhook endpoint',
    description: 'Subscribes a URL to Herald events, signed by Standard Webhooks; the secret is shown once.',
    annotations: writes({}),
    output: webhookEndpointWithSecretSchema,
    summary: (o) => `Webhook endpoint ${o.id} for ${o.url} (${o.eventTypes.join(', ')}); secret ${o.secret} (shown once).`,
  },
});

export const listWebhooks = operation({
  name: 'list_webhooks',
  scope: 'webhooks:read',
  call: (services, access) => services.webhooks.list(access),
  rest: {
    method: 'GET',
    url: '/webhooks',
    tags,
    summary: "List the workspace's webhook endpoints",
    response: webhookEndpointListSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'List webhook endpoints',
    description: "The workspace's webhook endpoints, oldest first (their secrets are never shown again).",
    annotations: READ_ONLY,
    output: webhookEndpointListSchema,
    summary: (o) => listSummary(o.endpoints, 'endpoint', (e) => `${e.id} ${e.url}`),
  },
});

export const getWebhook = operation({
  name: 'get_webhook',
  scope: 'webhooks:read',
  params: webhookParams,
  call: (services, access, { id }) => services.webhooks.get(access, id),
  rest: {
    method: 'GET',
    url: '/webhooks/:id',
    tags,
    summary: 'Read a webhook endpoint',
    response: webhookEndpointSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Read a webhook endpoint',
    description: 'One webhook endpoint: its URL, events, and whether it is enabled or failing.',
    annotations: READ_ONLY,
    output: webhookEndpointSchema,
    summary: (o) => `Endpoint ${o.id}: ${o.url}, ${o.enabled ? 'enabled' : 'disabled'}.`,
  },
});

export const updateWebhook = operation({
  name: 'update_webhook',
  scope: 'webhooks:write',
  params: webhookParams,
  body: updateWebhookBody,
  call: (services, access, { id, ...input }) => services.webhooks.update(access, id, input),
  rest: {
    method: 'PATCH',
    url: '/webhooks/:id',
    tags,
    summary: 'Change a webhook endpoint',
    description: 'Only the fields given change. `enabled: true` also enables an endpoint Herald disabled after failing deliveries.',
    response: webhookEndpointSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Change a webhook endpoint',
    description: 'Changes the URL, description, events or enabled state of a webhook endpoint.',
    annotations: writes({ idempotent: true }),
    output: webhookEndpointSchema,
    summary: (o) => `Endpoint ${o.id}: ${o.url}, ${o.enabled ? 'enabled' : 'disabled'}.`,
  },
});

export const deleteWebhook = operation({
  name: 'delete_webhook',
  scope: 'webhooks:write',
  params: webhookParams,
  call: (services, access, { id }) => services.webhooks.delete(access, id),
  rest: {
    method: 'DELETE',
    url: '/webhooks/:id',
    tags,
    summary: 'Delete a webhook endpoint',
    description: 'Its pending deliveries and its log go with it.',
    response: webhookDeletedSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Delete a webhook endpoint',
    description: 'Deletes a webhook endpoint with its pending deliveries and its log.',
    annotations: writes({ destructive: true, idempotent: true }),
    output: webhookDeletedSchema,
    summary: () => 'Deleted.',
  },
});

export const rotateWebhookSecret = operation({
  name: 'rotate_webhook_secret',
  scope: 'webhooks:write',
  params: webhookParams,
  call: (services, access, { id }) => services.webhooks.rotateSecret(access, id),
  rest: {
    method: 'POST',
    url: '/webhooks/:id/rotate-secret',
    tags,
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      'A new secret, shown once. For 24 hours (until `previousSecretValidUntil`) every delivery carries two signatures, one by each secret, so a receiver verifying with either accepts it: switch the receiver within that time.',
    response: webhookEndpointWithSecretSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Rotate a webhook secret',
    description: 'A new signing secret, shown once; the old one keeps signing beside it for 24 hours.',
    annotations: writes({}),
    output: webhookEndpointWithSecretSchema,
    summary: (o) => `New secret for ${o.id}: ${o.secret} (shown once); the old one signs too until ${o.previousSecretValidUntil}.`,
  },
});

const testEventSchema = z.object({ eventId: z.string().describe('The test event; its delivery appears in the log.') });

export const testWebhook = operation({
  name: 'test_webhook',
  scope: 'webhooks:write',
  params: webhookParams,
  call: (services, access, { id }) => services.webhooks.sendTest(access, id),
  rest: {
    method: 'POST',
    url: '/webhooks/:id/test',
    tags,
    summary: 'Send a test event to a webhook endpoint',
    description: 'Queues a `webhook.test` event for this endpoint alone, delivered and retried like any other.',
    response: testEventSchema,
    status: 201,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Send a test webhook event',
    description: 'Queues a `webhook.test` event for one endpoint; read the delivery log to see how it went.',
    annotations: writes({}),
    output: testEventSchema,
    summary: (o) => `Test event ${o.eventId} queued.`,
  },
});

export const listWebhookDeliveries = operation({
  name: 'list_webhook_deliveries',
  scope: 'webhooks:read',
  params: webhookParams,
  query: deliveriesQuery,
  call: (services, access, { id, limit }) => services.webhooks.listDeliveries(access, id, limit),
  rest: {
    method: 'GET',
    url: '/webhooks/:id/deliveries',
    tags,
    summary: "A webhook endpoint's delivery log, newest first",
    description: 'Each delivery with its state, next retry and every attempt (status, duration, the start of the answer).',
    response: webhookDeliveryListSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Read a webhook delivery log',
    description: "The endpoint's latest deliveries, newest first, with each attempt.",
    annotations: READ_ONLY,
    output: webhookDeliveryListSchema,
    summary: (o) => listSummary(o.deliveries, 'delivery', (d) => `${d.type} ${d.state}`),
  },
});

export const redeliverWebhook = operation({
  name: 'redeliver_webhook',
  scope: 'webhooks:write',
  params: deliveryParams,
  call: (services, access, { id, deliveryId }) => services.webhooks.redeliver(access, id, deliveryId),
  rest: {
    method: 'POST',
    url: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    tags,
    summary: 'Send a delivery again',
    description:
      'A delivery that succeeded or failed is sent again now, with the same `webhook-id` and body. 409 `delivery_in_progress` while it is pending or being sent; 404 once it was purged (30 days after its event settled), also when the purge ran at the same moment.',
    response: webhookDeliverySchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Send a webhook delivery again',
    description: 'Sends a settled delivery again now, with the same webhook-id and body.',
    annotations: writes({}),
    output: webhookDeliverySchema,
    summary: (o) => `Delivery ${o.id} queued again.`,
  },
});

export const replayWebhookFailures = operation({
  name: 'replay_webhook_failures',
  scope: 'webhooks:write',
  params: webhookParams,
  body: replayBody,
  call: (services, access, { id, since }) => services.webhooks.replayFailed(access, id, since),
  rest: {
    method: 'POST',
    url: '/webhooks/:id/replay',
    tags,
    summary: 'Send every failed delivery since a time again',
    description:
      'For an endpoint that was down: each failed delivery of an event since `since` is sent again now, with its `webhook-id` and body.',
    response: replaySchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Replay failed webhook deliveries',
    description: 'Sends again every failed delivery to an endpoint since a time.',
    annotations: writes({}),
    output: replaySchema,
    summary: (o) => `${plural(o.requeued, 'delivery')} queued again.`,
  },
});
