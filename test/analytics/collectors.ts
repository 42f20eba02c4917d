import { AnalyticsCollector, type CollectorOptions } from '../../src/analytics/analytics.collector.ts';
import type { Clock } from '../../src/lib/clock.ts';
import type { TestApp } from '../helpers/app.ts';

/** A collector of its own on a test app's database and services, as another worker would run. */
export function newCollector(t: TestApp, clock: Clock, options: Partial<CollectorOptions> = {}): AnalyticsCollector {
  return new AnalyticsCollector({
    db: t.runtime.db,
    clock,
    outbound: t.runtime.outbound,
    platformApps: t.services.channels.platformApps,
    channels: t.services.channels,
    notifications: t.services.notifications,
    options,
  });
}
