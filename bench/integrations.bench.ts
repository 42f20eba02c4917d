import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { openRuntime } from '../src/runtime.ts';
import { load, startHerald, startProcess, stop, type Load } from './lib.ts';

const HERALD = fileURLToPath(new URL('../bin/herald.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-server.ts', import.meta.url));

/**
 * Authenticated GET /public/v1/integrations on the real server (SQLite, 10 channels, full
 * guard: key check, workspace and role lookup, rate limit, headers) against a bare Fastify
 * route returning the same JSON, in the same run.
 */
export async function integrationsBench(options: { seconds: number; connections: number }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const env = { DATA_DIR: dataDir, BOOTSTRAP: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '100000000', SECRET_KEY: 'cd'.repeat(32) };
  const runtime = await openRuntime(loadConfig(env));
  const ws = await runtime.services.workspaces.create({ name: 'Bench' });
  const user = await runtime.services.users.create({ email: 'bench@example.test' });
  await runtime.services.workspaces.addMember(ws.id, user.id, 'owner');
  const group = await runtime.services.groups.create(ws.id, 'Clients');
  for (let i = 0; i < 10; i++) {
    await runtime.services.channels.create(ws.id, { provider: 'webhook', name: `Channel ${i}`, profile: `channel${i}`, groupId: i % 2 ? group.id : null, config: { url: 'https://example.test/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
  }
  const { secret } = await runtime.services.apiKeys.create({ userId: user.id });
  await runtime.close();

  const herald = await startHerald(HERALD, env);
  const url = `http://127.0.0.1:${herald.port}/public/v1/integrations`;
  const sample = await fetch(url, { headers: { authorization: secret } });
  if (sample.status !== 200) throw new Error(`unexpected ${sample.status}: ${await sample.text()}`);
  const body = await sample.text();
  const bare = await startProcess(['--import', 'tsx', BARE], { BARE_BODY: body });
  try {
    // Warm both up, then measure one after the other so they do not compete for the two cores.
    await load(url, { seconds: 2, connections: options.connections, headers: { authorization: secret } });
    await load(`http://127.0.0.1:${bare.port}/public/v1/integrations`, { seconds: 2, connections: options.connections });
    const real: Load = await load(url, { ...options, headers: { authorization: secret } });
    const floor: Load = await load(`http://127.0.0.1:${bare.port}/public/v1/integrations`, options);
    return { herald: real, bare: floor, ratio: Number((real.requestsPerSecond / floor.requestsPerSecond).toFixed(3)), bodyBytes: body.length };
  } finally {
    await stop(herald.child);
    await stop(bare.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
