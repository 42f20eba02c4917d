import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import type { OutboundClient } from '../net/outbound.ts';
import type { Services } from '../services.ts';
import type { JobQueue } from './job-queue.ts';
import { Publisher, type PublisherDeps } from './publisher.ts';

/** What the engine is built on: the database, clock, queue, outbound client and services of a process (its runtime). */
export type EngineParts = {
  db: Db;
  clock: Clock;
  queue: JobQueue;
  outbound: OutboundClient;
  services: Pick<Services, 'channels' | 'media' | 'notifications' | 'shortLinks' | 'postTransitions'> & Partial<Pick<Services, 'series'>>;
  config: Pick<Config, 'publishing'>;
};

/** Builds the publishing engine's worker. */
export function createPublisher(
  parts: EngineParts,
  log: PublisherDeps['log'],
  extra: Pick<PublisherDeps, 'hooks' | 'options'> = {},
): Publisher {
  const { services, config } = parts;
  return new Publisher({
    db: parts.db,
    clock: parts.clock,
    queue: parts.queue,
    channels: services.channels,
    media: services.media,
    notifications: services.notifications,
    transitions: services.postTransitions,
    shortLinks: services.shortLinks,
    ...(services.series && { series: services.series }),
    outbound: parts.outbound,
    log,
    ...(extra.hooks && { hooks: extra.hooks }),
    options: {
      maxAttempts: config.publishing.maxAttempts,
      leaseMs: config.publishing.leaseSeconds * 1000,
      horizonMs: config.publishing.horizonSeconds * 1000,
      ...extra.options,
    },
  });
}
