import type { Runtime } from '../runtime.ts';
import { Publisher, type PublisherDeps } from './publisher.ts';

/** Builds the publishing engine's worker on a runtime's services and queue. */
export function createPublisher(runtime: Runtime, log: PublisherDeps['log']): Publisher {
  const { services, config } = runtime;
  return new Publisher({
    db: runtime.db,
    clock: runtime.clock,
    queue: runtime.queue,
    channels: services.channels,
    media: services.media,
    notifications: services.notifications,
    shortLinks: services.shortLinks,
    outbound: runtime.outbound,
    log,
    options: { maxAttempts: config.publishing.maxAttempts, leaseMs: config.publishing.leaseSeconds * 1000 },
  });
}
