export const WEBHOOK_EVENT_TYPES = [
  'post.created',
  'post.scheduled',
  'post.updated',
  'post.deleted',
  'post.published',
  'post.failed',
  'post.comment.published',
  'post.awaiting_approval',
  'post.approved',
  'post.rejected',
  'channel.connected',
  'channel.disconnected',
  'channel.needs_reconnect',
  'channel.deleted',
  'media.uploaded',
  'notification.created',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an endpoint may subscribe to (the test event is sent on request, whatever the subscription). */
export const SUBSCRIBABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test');

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  description: string;
  /** JSON array of event types. */
  event_types: string;
  enabled: number;
  /** Why Herald disabled it (`failing`); null when enabled or disabled by a person. */
  disabled_reason: string | null;
  /** The signing secret (`whsec_…`), sealed with the SecretBox. */
  secret: string;
  /** The secret before the last rotation, sealed; deliveries are signed with it too until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** When the first of the deliveries failing since the last success failed; null after a success. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventsTable {
  /** Also the `webhook-id` of every delivery of the event (`msg_` + id), the same on every retry. */
  id: string;
  workspace_id: string;
  type: WebhookEventType;
  /** The post, channel, file or notification the event is about. */
  subject_id: string;
  /** JSON object: what the event itself says, fixed when it happened (a failure's reason, the platform's id). */
  details: string;
  /** Orders events: the time and a counter of the process that wrote it. */
  position: string;
  /** 1 once its deliveries were created and its body rendered. */
  dispatched: number;
  /** The envelope sent to every endpoint, byte for byte on every attempt; null until dispatched. */
  body: string | null;
  created_at: string;
}

export type DeliveryState = 'pending' | 'sending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  workspace_id: string;
  subject_id: string;
  position: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: string | null;
  claimed_at: string | null;
  lease_until: string | null;
  first_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  at: string;
  status: number | null;
  duration_ms: number;
  error: string | null;
  /** The start of the receiver's answer (at most `RESPONSE_EXCERPT` characters). */
  response: string | null;
}
