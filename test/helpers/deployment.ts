// A deployment for tests that run real `herald serve` processes: the environment they share,
// and a workspace seeded straight through the services before any process starts.
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { TEST_SECRET_KEY, TEST_WEBHOOK_SECRET } from './app.ts';

/** The environment every process of one test deployment shares. */
export function deploymentEnv(databaseUrl: string, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SECRET_KEY: TEST_SECRET_KEY,
    BASE_URL: 'http://herald.test',
    BOOTSTRAP: 'false',
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/**
 * A workspace with `channels` webhook channels pointing at `url` (signed with the test secret),
 * an owner, and a full-scope key for that owner; straight through the services.
 */
export async function seedWorkspace(
  env: Record<string, string>,
  url: string,
  channels: number,
  name = 'Scale',
): Promise<{ key: string; channelIds: string[] }> {
  // Only the database is needed to seed: no queue, no Redis.
  const { REDIS_URL: _redis, STORAGE: _storage, ...databaseOnly } = env;
  const runtime = await openRuntime(loadConfig(databaseOnly));
  try {
    const ws = await runtime.services.workspaces.create({ name });
    const user = await runtime.services.users.create({ email: `seed-${Date.now()}@example.test` });
    await runtime.services.workspaces.addMember(ws.id, user.id, 'owner');
    const channelIds: string[] = [];
    for (let i = 0; i < channels; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, channels - i) }, (_, j) =>
          runtime.services.channels.create(ws.id, { provider: 'webhook', name: `C${i + j}`, config: { url, secret: TEST_WEBHOOK_SECRET } }),
        ),
      );
      channelIds.push(...batch.map((c) => c.id));
    }
    const key = (await runtime.services.apiKeys.create({ userId: user.id })).secret;
    return { key, channelIds };
  } finally {
    await runtime.close();
  }
}
