import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { WorkspaceAccess } from '../../src/auth/access.service.ts';
import type { Role } from '../../src/auth/scopes.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { QueryObserver } from '../../src/db/connection.ts';
import type { Clock } from '../../src/lib/clock.ts';
import type { UploadLinksOptions } from '../../src/media/upload-links.service.ts';
import type { OutboundClient } from '../../src/net/outbound.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { createPublisher } from '../../src/publishing/engine.ts';
import type { Publisher, PublisherDeps } from '../../src/publishing/publisher.ts';
import { dropRedisPrefix, freshDatabase, freshRedisPrefix, scaleEnv, type FreshDatabase } from './backend.ts';

/**
 * Apps still open when their file ends. `afterAll` called inside a running test registers
 * nothing, so an app created in a test would otherwise never be closed: its database schema and
 * Redis keys would stay behind. This hook is registered once per test file, when it imports this helper.
 */
const stillOpen = new Set<() => Promise<void>>();
afterAll(async () => {
  for (const close of [...stillOpen]) await close();
});

export const TEST_BASE_URL = 'http://herald.test';
export const TEST_SECRET_KEY = 'ab'.repeat(32);
export const TEST_WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export type TestApp = {
  app: FastifyInstance;
  runtime: Runtime;
  config: Config;
  services: Runtime['services'];
  database: FreshDatabase;
  /** The publishing engine (started only with `engine: true`). */
  publisher: Publisher;
  /** Waits until the engine has nothing running and nothing due. */
  settle(): Promise<void>;
  /** Sends a request through the full HTTP stack. `key` becomes the Authorization header. */
  request(options: InjectOptions & { key?: string; showorg?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
};

/** Builds the real application on a fresh database; closed after the file's tests. */
export async function createTestApp(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    extraRoutes?: (app: FastifyInstance) => void;
    engine?: boolean;
    /** Jobs the started engine runs at once (4 by default). */
    engineConcurrency?: number;
    /** Open this app's database again (a restart); it is then dropped by its first owner only. */
    reopen?: TestApp;
    /** The guarded client for server-side fetches (e.g. with an injected resolver); closed with the app. */
    outbound?: OutboundClient;
    /** Test seams of the publishing engine (e.g. an edit between its read and its claim). */
    publisherHooks?: PublisherDeps['hooks'];
    /** Engine options beyond the configuration's (e.g. a faster lease renewal). */
    publisherOptions?: PublisherDeps['options'];
    /** Sees every database statement the app runs. */
    onQuery?: QueryObserver;
    /** Lowered upload-link limits, test seams of upload links. */
    uploadLinks?: UploadLinksOptions;
    /** A database the test prepared (e.g. at an older migration); dropped with the app. */
    database?: FreshDatabase;
    /** Webhook delivery test seams (a shorter attempt timeout). */
    webhookDelivery?: NonNullable<Parameters<typeof openRuntime>[1]>['webhookDelivery'];
  } = {},
): Promise<TestApp> {
  const fresh = options.reopen
    ? { ...options.reopen.database, drop: async () => {} }
    : (options.database ?? (await freshDatabase({ migrated: true })));
  // A restart is the same deployment: it keeps its Redis prefix (queued jobs, counters) and media.
  const prefix = options.reopen?.config.redis?.prefix ?? freshRedisPrefix();
  let config: Config;
  let runtime: Runtime;
  let app: FastifyInstance;
  let publisher: Publisher;
  try {
    config = loadConfig({
      DATA_DIR: fresh.dataDir,
      BASE_URL: TEST_BASE_URL,
      LOG_LEVEL: 'silent',
      SECRET_KEY: TEST_SECRET_KEY,
      ...scaleEnv(prefix),
      ...options.env,
    });
    runtime = await openRuntime(config, {
      target: fresh.target,
      ...(options.clock && { clock: options.clock }),
      ...(options.outbound && { outbound: options.outbound }),
      ...(options.onQuery && { onQuery: options.onQuery }),
      ...(options.uploadLinks && { uploadLinks: options.uploadLinks }),
      ...(options.webhookDelivery && { webhookDelivery: options.webhookDelivery }),
    });
  } catch (error) {
    await fresh.drop();
    throw error;
  }
  try {
    app = await buildApp(config, {
      services: runtime.services,
      clock: runtime.clock,
      redis: runtime.redis,
      readiness: runtime.readiness,
      logger: false,
    });
    options.extraRoutes?.(app);
    await app.ready();
    publisher = createPublisher(runtime, silentLog, { hooks: options.publisherHooks, options: options.publisherOptions });
    if (options.engine) {
      await publisher.start({ concurrency: options.engineConcurrency ?? 4, sweepIntervalMs: 0, exclusive: true });
      // As in a process that publishes: the collection of numbers gives way to publishing.
      runtime.services.analytics.collector.yieldTo(publisher.activity);
    }
  } catch (error) {
    await runtime.close();
    await fresh.drop();
    throw error;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    stillOpen.delete(close);
    try {
      await app.close();
      await publisher.stop();
      await runtime.services.webhookDelivery.stop();
      await runtime.close();
    } finally {
      await fresh.drop();
      if (config.redis && !options.reopen) await dropRedisPrefix(config.redis.prefix);
    }
  };
  stillOpen.add(close);
  afterAll(close);
  return {
    app,
    runtime,
    config,
    database: fresh,
    services: runtime.services,
    publisher,
    settle: async () => {
      if (!runtime.queue.idle) throw new Error('This queue cannot tell when it is idle.');
      await runtime.queue.idle();
    },
    request: ({ key, showorg, headers, ...rest }) =>
      app.inject({
        ...rest,
        headers: { ...headers, ...(key !== undefined && { authorization: key }), ...(showorg !== undefined && { showorg }) },
      }),
    close,
  };
}

const silentLog = { info: () => {}, warn: () => {}, error: (obj: object, msg: string) => console.error(msg, obj) };

let counter = 0;
/** A unique suffix for names and e-mail addresses within a run. */
export function unique(label: string): string {
  counter += 1;
  return `${label}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export type Tenant = {
  workspaceId: string;
  userId: string;
  keyId: string;
  key: string;
};

/** A workspace with a member holding `role` and a REST key with `scopes` (all by default). */
export async function createTenant(
  t: TestApp,
  options: { role?: Role; scopes?: string[]; channelIds?: string[]; limitToWorkspace?: boolean; mcp?: boolean; workspaceId?: string } = {},
): Promise<Tenant> {
  const workspaceId = options.workspaceId ?? (await t.services.workspaces.create({ name: unique('workspace') })).id;
  const user = await t.services.users.create({ email: `${unique('user')}@example.test` });
  await t.services.workspaces.addMember(workspaceId, user.id, options.role ?? 'owner');
  const { key, secret } = await t.services.apiKeys.create({
    userId: user.id,
    kind: options.mcp ? 'mcp' : 'rest',
    ...(options.scopes && { scopes: options.scopes }),
    channelIds: options.channelIds ?? null,
    workspaceId: options.limitToWorkspace ? workspaceId : null,
  });
  return { workspaceId, userId: user.id, keyId: key.id, key: secret };
}

/** The access a tenant's key acts with in its workspace, as a request selects it: for calling a service as a route does. */
export async function accessOf(t: TestApp, tenant: Tenant): Promise<WorkspaceAccess> {
  return t.services.access.select(await t.services.apiKeys.authenticate(tenant.key, 'rest'), tenant.workspaceId);
}
