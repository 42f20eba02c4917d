import { pathToFileURL } from 'node:url';
import { buildApp } from './app.ts';
import { bootstrapIfEmpty } from './bootstrap.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createPublisher } from './publishing/engine.ts';
import { openRuntime } from './runtime.ts';

/** Starts the service: migrations, first-start bootstrap, HTTP. Resolves once listening. */
export async function startServer(config: Config) {
  const runtime = await openRuntime(config);
  const app = await buildApp(config, { services: runtime.services, clock: runtime.clock });
  if (config.database.kind === 'postgres' && !config.secretKey) {
    app.log.warn('SECRET_KEY is not set: channel credentials are sealed with DATA_DIR/secret.key; every process must share that key.');
  }
  if (config.bootstrap) {
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
          '',
        ].join('\n') + '\n',
      );
    }
  }
  const publisher = createPublisher(runtime, app.log.child({ component: 'publisher' }));
  // SQLite means one process owns the database, so parts left SENDING at boot are orphans.
  await publisher.start({
    concurrency: config.publishing.concurrency,
    sweepIntervalMs: config.publishing.sweepIntervalSeconds * 1000,
    exclusive: config.database.kind === 'sqlite',
  });
  await app.listen({ port: config.port, host: config.host });
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      // Stop taking requests and starting publishes; let those in flight finish; then close the database.
      await Promise.all([app.close(), publisher.stop()]);
      await runtime.close();
    })();
    return closing;
  };
  return { app, runtime, publisher, close };
}

/** Runs until SIGTERM or SIGINT, then stops taking requests, finishes those in flight and exits. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const server = await startServer(config);
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
