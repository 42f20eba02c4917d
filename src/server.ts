import { pathToFileURL } from 'node:url';
import { buildApp } from './app.ts';
import { bootstrapIfEmpty } from './bootstrap.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { buildHealthApp } from './health/health-app.ts';
import { requestActivity } from './http/request-activity.ts';
import { requestLogSerializers } from './http/request-log.ts';
import { createLogger } from './lib/logger.ts';
import { createPublisher } from './publishing/engine.ts';
import { openRuntime } from './runtime.ts';

/**
 * What a process runs: `api` serves HTTP and only enqueues, `worker` publishes (and answers
 * /healthz and /readyz only), `all` both, as one embedded process does.
 */
export type Role = 'all' | 'api' | 'worker';

/** Starts the service: migrations, first-start bootstrap, HTTP, the publisher. Resolves once listening. */
export async function startServer(config: Config, options: { role?: Role } = {}) {
  const role = options.role ?? 'all';
  if (role !== 'all' && !config.redis) {
    // An API process alone would queue jobs in its own memory where no worker can see them.
    throw new ConfigError(
      `--role ${role} needs REDIS_URL: API and worker processes share their jobs through Redis. Without it, run --role all (one process).`,
    );
  }
  const log = await createLogger({ level: config.logLevel, serializers: requestLogSerializers });
  const runtime = await openRuntime(config, { log: log.child({ component: 'queue' }), mailLog: log.child({ component: 'mail' }) });
  const app =
    role === 'worker'
      ? await buildHealthApp({ checks: runtime.readiness, log })
      : await buildApp(config, {
          services: runtime.services,
          clock: runtime.clock,
          redis: runtime.redis,
          readiness: runtime.readiness,
          log,
        });
  if (config.database.kind === 'postgres' && !config.secretKey) {
    app.log.warn('SECRET_KEY is not set: channel credentials are sealed with DATA_DIR/secret.key; every process must share that key.');
  }
  if (config.bootstrap && role !== 'worker') {
    const created = await bootstrapIfEmpty(runtime.db, runtime.services, runtime.clock);
    if (created) {
      process.stdout.write(
        [
          '',
          'Herald: first start on an empty database. Created:',
          `  workspace  ${created.workspaceId} ("Default workspace")`,
          `  owner      owner@localhost (${created.userId})`,
          `  API key    ${created.secret}`,
          'This key is shown once and is not stored; keep it now. Try:',
          `  curl -H "Authorization: ${created.secret}" ${config.baseUrl}/public/v1/integrations`,
          'Owner sign-in link for the account pages (works once, for 24 hours, no mail needed):',
          `  ${created.signInLink.url}`,
          '',
        ].join('\n') + '\n',
      );
    }
  }
  const publisher = createPublisher(runtime, app.log.child({ component: 'publisher' }));
  if (role !== 'api') {
    // The embedded default is one process owning a SQLite file, so parts left SENDING at boot are
    // orphans; anywhere else another worker may be mid-publish, and only expired leases are settled.
    await publisher.start({
      concurrency: config.publishing.concurrency,
      sweepIntervalMs: config.publishing.sweepIntervalSeconds * 1000,
      exclusive: config.database.kind === 'sqlite' && !config.redis && role === 'all',
    });
    // Webhook deliveries run where publishing runs; the outbox in the database is shared by every
    // worker. Publishing comes first: while this process publishes, deliveries take a small share.
    runtime.services.webhookDelivery.start({ intervalMs: 1000, publishing: publisher.activity }, runtime.services.webhookOutbox);
    // Statistics are read by the processes that publish, a minute apart, each channel under a lease,
    // giving way to publishing (while posts are due or being published, the cycle waits) and to
    // the API's requests in this process (a call per second at least while they never pause).
    const analyticsLog = app.log.child({ component: 'analytics' });
    runtime.services.analytics.collector.yieldTo(publisher.activity, role === 'all' ? requestActivity(app.server) : null);
    runtime.services.analytics.collector.start(60_000, (error) => analyticsLog.error({ err: error }, 'analytics collection failed'));
  }
  if (role !== 'worker') {
    // Imports run in the processes that take requests; one that stopped or crashed left its imports for the others (or itself, restarted) to go on with.
    runtime.services.imports.start({ intervalMs: 30_000 });
  }
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { role, queue: config.redis ? 'bullmq' : 'embedded', database: config.database.kind, storage: config.storage.kind },
    'herald started',
  );
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      // Stop taking requests and starting publishes; let those in flight finish; then close the database.
      await Promise.all([
        app.close(),
        publisher.stop(),
        runtime.services.webhookDelivery.stop(),
        runtime.services.analytics.collector.stop(),
        runtime.services.imports.stop(),
      ]);
      await runtime.close();
    })();
    return closing;
  };
  return { app, runtime, publisher, close };
}

/** Runs until SIGTERM or SIGINT, then stops taking requests, finishes those in flight and exits. */
export async function main(env: NodeJS.ProcessEnv = process.env, options: { role?: Role } = {}): Promise<void> {
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(loadConfig(env), options);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.app.log.info({ signal }, 'stopping');
      server.close().then(
        () => process.exit(0),
        (error: unknown) => {
          server.app.log.error({ err: error }, 'error while stopping');
          process.exit(1);
        },
      );
    });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
