import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import { herald, processBudget } from '../helpers/process.ts';

let env: Record<string, string>;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  env = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, SECRET_KEY: 'ab'.repeat(32) };
}, 60_000);

afterAll(async () => {
  await drop?.();
});

describe('herald migrate (migrations once per release)', () => {
  it('a process started with MIGRATE_ON_START=false refuses a database that lacks migrations, naming the command', async () => {
    const result = await herald(['serve'], { ...env, MIGRATE_ON_START: 'false', PORT: '0', HOST: '127.0.0.1' });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/lacks \d+ migration\(s\).*run `herald migrate`/);
    expect(result.stderr).not.toMatch(/ at .*\.ts:\d+/);
  }, processBudget(1));

  it('applies the pending migrations once, then reports the database up to date', async () => {
    const first = await herald(['migrate', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const applied = (JSON.parse(first.stdout) as { applied: string[] }).applied;
    expect(applied.length).toBeGreaterThan(0);
    expect(applied[0]).toMatch(/foundation/);
    const again = await herald(['migrate'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe('the database is up to date');
    // And now the admin commands run without migrating anything.
    const ws = await herald(['admin', 'workspace', 'create', '--name', 'After', '--json'], { ...env, MIGRATE_ON_START: 'false' });
    expect(ws.code, ws.stderr).toBe(0);
  }, processBudget(3));
});
