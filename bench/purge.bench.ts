// An operator's purge of a large channel (`herald admin channel delete --purge`) while another
// process writes to the same SQLite file, as the server would: how long that process's writes wait.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { openRuntime } from '../src/runtime.ts';
import { checkout } from './checkout.ts';
import { forOlderCode, HERALD_ROOT } from './herald-api.ts';

const ENV = { BOOTSTRAP: 'false', SECRET_KEY: 'cd'.repeat(32), LOG_LEVEL: 'warn' };
const HOOK = { url: 'https://example.test/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };

/** A new SQLite file with a workspace of two channels, the first with `posts` published posts of two parts each. */
async function seed(dataDir: string, posts: number) {
  const runtime = await openRuntime(loadConfig({ ...ENV, DATA_DIR: dataDir }));
  const ws = await runtime.services.workspaces.create({ name: 'Purge' });
  const purged = await runtime.services.channels.create(ws.id, { provider: 'webhook', name: 'Purged', profile: 'purged', config: HOOK });
  const kept = await runtime.services.channels.create(ws.id, { provider: 'webhook', name: 'Kept', profile: 'kept', config: HOOK });
  await runtime.close();
  const db = new Database(path.join(dataDir, 'herald.db'));
  const at = new Date().toISOString();
  const post = db.prepare(
    `insert into posts (id, workspace_id, group_id, channel_id, state, publish_at, settings, tags, short_link, published_at, created_at, updated_at, version) values (?, ?, ?, ?, 'PUBLISHED', ?, '{}', '[]', 0, ?, ?, ?, 0)`,
  );
  const part = db.prepare(
    `insert into post_parts (post_id, idx, content, images, delay_minutes, state, attempts, published_at) values (?, ?, '<p>Published</p>', '[]', 0, 'PUBLISHED', 1, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < posts; i++) {
      const id = `post-${i}`;
      post.run(id, ws.id, id, purged.id, at, at, at, at);
      part.run(id, 0, at);
      part.run(id, 1, at);
    }
  })();
  db.close();
  return { workspaceId: ws.id, purgedId: purged.id, keptId: kept.id };
}

/** Runs the purge with `root`'s command while this process updates a row of the other channel every 2 ms. */
async function purgeWhileWriting(root: string, posts: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-purge-'));
  try {
    const { workspaceId, purgedId, keptId } = await seed(dataDir, posts);
    if (root !== HERALD_ROOT) forOlderCode(path.join(dataDir, 'herald.db'), root);
    const db = new Database(path.join(dataDir, 'herald.db'));
    // As the server's own connection waits for the write lock.
    db.pragma('busy_timeout = 5000');
    const write = db.prepare('update channels set updated_at = ? where id = ?');
    const child = spawn(
      process.execPath,
      [path.join(root, 'bin/herald.js'), 'admin', 'channel', 'delete', purgedId, '--workspace', workspaceId, '--purge'],
      {
        env: { ...process.env, ...ENV, DATA_DIR: dataDir },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let running = true;
    void exited.then(() => (running = false));
    const started = performance.now();
    const waits: number[] = [];
    let failed = 0;
    while (running) {
      const before = performance.now();
      try {
        write.run(new Date().toISOString(), keptId);
      } catch {
        failed += 1;
      }
      waits.push(performance.now() - before);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const code = await exited;
    const left = (db.prepare('select count(*) as n from posts where channel_id = ?').get(purgedId) as { n: number }).n;
    db.close();
    waits.sort((a, b) => a - b);
    const at = (q: number) => Math.round(waits[Math.min(waits.length - 1, Math.floor(q * waits.length))]! * 10) / 10;
    return {
      posts,
      exitCode: code,
      postsLeft: left,
      // From the command's launch (its start-up included) to its exit.
      commandMs: Math.round(performance.now() - started),
      writes: waits.length,
      writesFailed: failed,
      writeWaitMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
    };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Each size with this checkout's command, and first with `baseline`'s when given. */
export async function purgeBench(options: { sizes: number[]; baseline?: string | undefined }) {
  const run = async (root: string) => {
    const results = [];
    for (const posts of options.sizes) results.push(await purgeWhileWriting(root, posts));
    return results;
  };
  if (!options.baseline) return { current: await run(HERALD_ROOT) };
  const dir = checkout(options.baseline);
  try {
    // Built once before it is timed (the first run of a checkout's command compiles it).
    execFileSync(process.execPath, [path.join(dir.dir, 'bin/herald.js'), 'admin', '--help'], { stdio: 'ignore' });
    return { baseline: { ref: options.baseline, result: await run(dir.dir) }, current: await run(HERALD_ROOT) };
  } finally {
    dir.remove();
  }
}
