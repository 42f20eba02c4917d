// One bulk import, run by bench/imports.bench.ts in a process of its own: the code at argv[2]
// (this checkout, or a baseline's), `argv[3]` rows, on the database of DATA_DIR / DATABASE_URL.
// Prints the figures as one JSON line.
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [root, count] = process.argv.slice(2);
const rows = Number(count);
const HOOK = { url: 'https://example.test/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };

const { loadConfig } = (await import(pathToFileURL(path.join(root!, 'src/config.ts')).href)) as typeof import('../src/config.ts');
const { openRuntime } = (await import(pathToFileURL(path.join(root!, 'src/runtime.ts')).href)) as typeof import('../src/runtime.ts');
const env = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== undefined && value !== '')) as Record<
  string,
  string
>;
const runtime = await openRuntime(loadConfig(env));
try {
  const { services } = runtime;
  const ws = await services.workspaces.create({ name: 'Import' });
  const user = await services.users.create({ email: 'import@example.test' });
  await services.workspaces.addMember(ws.id, user.id, 'owner');
  const channel = await services.channels.create(ws.id, { provider: 'webhook', name: 'Hook', profile: 'hook', config: HOOK });
  const { secret } = await services.apiKeys.create({ userId: user.id });
  const access = await services.access.select(await services.apiKeys.authenticate(secret, 'rest'), ws.id);
  const start = Date.parse('2030-01-01T00:00:00Z');
  const body = Array.from({ length: rows }, (_, i) => ({
    channels: channel.id,
    date: new Date(start + i * 60_000).toISOString(),
    content: `Post ${i + 1} of the import, with a [link](https://example.test/${i}).`,
    format: 'markdown',
    tags: 'bench|import',
  }));
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const began = performance.now();
  const created = await services.imports.create(access, { rows: body, dryRun: false, partial: false });
  let checkedAt = Number.NaN;
  for (let read = created; ;) {
    if (Number.isNaN(checkedAt) && read.validated === read.total) checkedAt = performance.now();
    if (read.status !== 'running') {
      if (read.status !== 'done' || read.created !== rows)
        throw new Error(`import ended ${read.status}: ${JSON.stringify(read.errors.slice(0, 3))}`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    read = await services.imports.get(access, created.id);
  }
  const ended = performance.now();
  delay.disable();
  const createSeconds = (ended - checkedAt) / 1000;
  process.stdout.write(
    `${JSON.stringify({
      checkSeconds: Math.round(checkedAt - began) / 1000,
      createSeconds: Math.round(createSeconds * 1000) / 1000,
      rowsCreatedPerSecond: Math.round(rows / createSeconds),
      loopDelayMaxMs: Math.round(delay.max / 1e4) / 100,
      loopDelayP99Ms: Math.round(delay.percentile(99) / 1e4) / 100,
    })}\n`,
  );
} finally {
  await runtime.close();
}
