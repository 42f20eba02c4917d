import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import { fields, show, table } from '../output.ts';
import { act, collect, examples, seg } from '../program.ts';

type Endpoint = components['schemas']['WebhookEndpoint'];
type WithSecret = components['schemas']['WebhookEndpointWithSecret'];
type Delivery = components['schemas']['WebhookDelivery'];

const secretShown = (e: WithSecret) =>
  fields([
    ['id', e.id],
    ['url', e.url],
    ['events', e.eventTypes.join(', ')],
    ['secret', `${e.secret} (shown once: keep it; verify deliveries with any Standard Webhooks library)`],
  ]);

export function register(program: Command): void {
  const webhooks = examples(program.command('webhooks').description("the workspace's webhook endpoints (signed event deliveries)"), [
    'herald webhooks list',
    'herald webhooks create https://example.com/hooks --event post.published --event post.failed',
    'herald webhooks deliveries wh_123',
  ]);
  examples(
    webhooks
      .command('list')
      .description('list the endpoints')
      .action(
        act(async ({ out, api }) => {
          const { endpoints } = await api().get<{ endpoints: Endpoint[] }>('/webhooks');
          show(out, { endpoints }, () =>
            table(
              ['ID', 'URL', 'EVENTS', 'STATE'],
              endpoints.map((e) => [
                e.id,
                e.url,
                e.eventTypes.join(','),
                e.enabled ? 'enabled' : `disabled${e.disabledReason ? `: ${e.disabledReason}` : ''}`,
              ]),
              'No webhook endpoints.',
            ),
          );
        }),
      ),
    ['herald webhooks list', 'herald webhooks list --json'],
  );
  examples(
    webhooks
      .command('create <url>')
      .description('create an endpoint; its signing secret is printed once')
      .requiredOption('--event <type>', 'an event type to receive (repeat for several)', collect)
      .option('--description <text>', 'a note for people')
      .action(
        act(async ({ out, opts, api }, url: string) => {
          const created = await api().request<WithSecret>('POST', '/webhooks', {
            json: { url, eventTypes: opts.event as string[], ...(opts.description !== undefined && { description: opts.description }) },
          });
          show(out, created, () => secretShown(created));
        }),
      ),
    ['herald webhooks create https://example.com/hooks --event post.published --event post.failed --description "CRM"'],
  );
  examples(
    webhooks
      .command('rotate <id>')
      .description('a new signing secret, printed once; the old one keeps signing beside it for 24 hours')
      .action(
        act(async ({ out, api }, id: string) => {
          const rotated = await api().request<WithSecret>('POST', `/webhooks/${seg(id)}/rotate-secret`);
          show(out, rotated, () => secretShown(rotated));
        }),
      ),
    ['herald webhooks rotate wh_123'],
  );
  examples(
    webhooks
      .command('test <id>')
      .description('send a webhook.test event to the endpoint')
      .action(
        act(async ({ out, api }, id: string) => {
          const sent = await api().request<{ eventId: string }>('POST', `/webhooks/${seg(id)}/test`);
          show(out, sent, () => `Test event ${sent.eventId} queued; see \`herald webhooks deliveries ${id}\`.`);
        }),
      ),
    ['herald webhooks test wh_123'],
  );
  examples(
    webhooks
      .command('deliveries <id>')
      .description("the endpoint's latest deliveries, newest first")
      .action(
        act(async ({ out, api }, id: string) => {
          const { deliveries } = await api().get<{ deliveries: Delivery[] }>(`/webhooks/${seg(id)}/deliveries`);
          show(out, { deliveries }, () =>
            table(
              ['ID', 'EVENT', 'STATE', 'ATTEMPTS', 'LAST STATUS', 'NEXT ATTEMPT'],
              deliveries.map((d) => [
                d.id,
                d.type,
                d.state,
                String(d.attempts),
                d.lastStatus === null ? '' : String(d.lastStatus),
                d.nextAttemptAt ?? '',
              ]),
              'No deliveries yet.',
            ),
          );
        }),
      ),
    ['herald webhooks deliveries wh_123', 'herald webhooks deliveries wh_123 --json'],
  );
  examples(
    webhooks
      .command('delete <id>')
      .description('delete an endpoint with its pending deliveries and its log')
      .action(
        act(async ({ out, api }, id: string) => {
          const deleted = await api().request<{ deleted: true }>('DELETE', `/webhooks/${seg(id)}`);
          show(out, deleted, () => `Deleted webhook endpoint ${id}.`);
        }),
      ),
    ['herald webhooks delete wh_123'],
  );
}
