import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Role } from '../../src/auth/scopes.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { freshDatabase } from './backend.ts';

export const TEST_BASE_URL = 'http://herald.test';
export const TEST_SECRET_KEY = 'ab'.repeat(32);

export type TestApp = {
  app: FastifyInstance;
  runtime: Runtime;
  config: Config;
  services: Runtime['services'];
  /** Sends a request through the full HTTP stack. `key` becomes the Authorization header. */
  request(options: InjectOptions & { key?: string; showorg?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
};

/** Builds the real application on a fresh database; closed after the file's tests. */
export async function createTestApp(
  options: { env?: Record<string, string>; clock?: Clock; extraRoutes?: (app: FastifyInstance) => void } = {},
): Promise<TestApp> {
  const fresh = await freshDatabase();
  let config: Config;
  let runtime: Runtime;
  let app: FastifyInstance;
  try {
    config = loadConfig({
      DATA_DIR: fresh.dataDir,
      BASE_URL: TEST_BASE_URL,
      LOG_LEVEL: 'silent',
      SECRET_KEY: TEST_SECRET_KEY,
      ...options.env,
    });
    runtime = await openRuntime(config, { target: fresh.target, ...(options.clock && { clock: options.clock }) });
  } catch (error) {
    await fresh.drop();
    throw error;
  }
  try {
    app = await buildApp(config, { services: runtime.services, clock: runtime.clock, logger: false });
    options.extraRoutes?.(app);
    await app.ready();
  } catch (error) {
    await runtime.close();
    await fresh.drop();
    throw error;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    await runtime.close();
    await fresh.drop();
  };
  afterAll(close);
  return {
    app,
    runtime,
    config,
    services: runtime.services,
    request: ({ key, showorg, headers, ...rest }) =>
      app.inject({
        ...rest,
        headers: { ...headers, ...(key !== undefined && { authorization: key }), ...(showorg !== undefined && { showorg }) },
      }),
    close,
  };
}

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
