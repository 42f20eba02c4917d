// npm run bench [-- <scenario> …] [--seconds N] [--connections N] [--rate N] [--rounds N] [--sizes 1000,20000] [--calendar-query '&limit=200'] [--video-mib N] [--runs N] [--workers 1,2] [--baseline <git ref>]
// Loopback only. Prints one JSON object per scenario.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { analyticsBench } from './analytics.bench.ts';
import { burstBench, withBaseline } from './burst.bench.ts';
import { growthBench } from './growth.bench.ts';
import { importsBench } from './imports.bench.ts';
import { integrationsBench } from './integrations.bench.ts';
import { loggingBench } from './logging.bench.ts';
import { mediaBench } from './media.bench.ts';
import { purgeBench } from './purge.bench.ts';
import { scaleApiBench, scaleBurstBench } from './scale.bench.ts';
import { startupBench } from './startup.bench.ts';
import { userCommandBench } from './user-command.bench.ts';
import { webappBench } from './webapp.bench.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    rate: { type: 'string' },
    control: { type: 'boolean' },
    posts: { type: 'string', default: '2000' },
    lead: { type: 'string', default: '20' },
    'video-mib': { type: 'string', default: '200' },
    runs: { type: 'string', default: '5' },
    rounds: { type: 'string' },
    workers: { type: 'string', default: '1,2' },
    baseline: { type: 'string' },
    sizes: { type: 'string', default: '1000,20000,200000' },
    backends: { type: 'string', default: 'sqlite' },
    'calendar-query': { type: 'string', default: '' },
  },
});
const scenarios: Record<string, () => Promise<unknown>> = {
  startup: () => startupBench({ runs: Number(values.runs), idleMs: 3000, settledIdleMs: 45_000, baseline: values.baseline }),
  integrations: () =>
    integrationsBench({
      seconds: Number(values.seconds),
      connections: Number(values.connections),
      rounds: Number(values.rounds ?? 3),
      baseline: values.baseline,
    }),
  logging: () =>
    loggingBench({
      seconds: Number(values.seconds),
      connections: Number(values.connections),
      rounds: Number(values.rounds ?? 6),
      baseline: values.baseline,
    }),
  burst: () => burstPair('burst', () => burstBench({ count: Number(values.posts), leadSeconds: Number(values.lead) })),
  // The same burst without, then with, one webhook endpoint subscribed to post.published: publishing's rate and p99 lateness side by side.
  webhooks: async () => {
    const options = { count: Number(values.posts), leadSeconds: Number(values.lead) };
    const without = await burstBench(options);
    const withWebhooks = await burstBench({ ...options, webhooks: true });
    const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
    return {
      without,
      withWebhooks,
      // The second bursts (a server that has published before): with / without.
      rateRatio: ratio(withWebhooks.second.postsPerSecond, without.second.postsPerSecond),
      p99LatenessRatio: ratio(withWebhooks.second.latenessMs.p99, without.second.latenessMs.p99),
    };
  },
  // Scale-out (PostgreSQL at DATABASE_URL, Redis at REDIS_URL; defaults on loopback): one run per configuration.
  'burst-scale': () =>
    burstPair('burst-scale', async () => {
      // By the number of worker processes (`--workers 1` for one worker only).
      const names: Record<string, string> = { '1': 'oneWorker', '2': 'twoWorkers' };
      const result: Record<string, unknown> = {};
      for (const workers of values.workers.split(',')) {
        if (!names[workers]) throw new Error(`--workers takes 1, 2 or 1,2, not ${values.workers}`);
        result[names[workers]] = await scaleBurstBench({
          count: Number(values.posts),
          leadSeconds: Number(values.lead),
          workers: Number(workers),
        });
      }
      return result;
    }),
  'api-scale': () => scaleApiBench({ seconds: Number(values.seconds), connections: Number(values.connections) }),
  'user-command': () => userCommandBench({ runs: Math.max(Number(values.runs), 10) }),
  purge: () => purgeBench({ sizes: [50_000, 200_000], baseline: values.baseline }),
  // Scheduled posts by the number: `--rounds` runs (new processes) on each size's file, 2 unless given; each request-rate figure for 5 s.
  growth: () =>
    growthBench({
      sizes: values.sizes.split(',').map(Number),
      runs: Number(values.rounds ?? 2),
      seconds: Math.min(Number(values.seconds), 5),
      extra: values['calendar-query'],
      baseline: values.baseline,
    }),
  // The web app: the first view's compressed bytes, and the month view with 1,000 posts in headless Chromium (`--runs` page loads).
  webapp: () => webappBench({ runs: Number(values.runs) }),
  // A collection cycle over 100 channels and 20,000 posts: its calls and cost, and the API's p99 with and without cycles running (`--rounds`, 3 unless given; `--runs` cycles measured alone; `--rate N` loads the API at N requests/s, random arrivals, instead of a closed loop; `--control`: the "collecting" turns collect nothing, to show the measure's own spread).
  analytics: () =>
    analyticsBench({
      seconds: Number(values.seconds),
      connections: Number(values.connections),
      rounds: Number(values.rounds ?? 3),
      cycles: Number(values.runs ?? 2),
      ...(values.rate && { rate: Number(values.rate) }),
      control: values.control === true,
    }),
  // A bulk import of `--posts` rows (5,000 unless given): rows checked and created per second, the event loop's longest delay; `--backends sqlite,postgres`, `--runs` (3 unless given).
  imports: () =>
    importsBench({
      rows: values.posts === '2000' ? 5000 : Number(values.posts),
      runs: Number(values.runs === '5' ? 3 : values.runs),
      backends: values.backends.split(',') as Array<'sqlite' | 'postgres'>,
      baseline: values.baseline,
    }),
  media: () =>
    mediaBench({ seconds: Number(values.seconds), connections: Number(values.connections), videoMiB: Number(values['video-mib']) }),
};
/** With --baseline, a burst scenario runs the baseline's code first, then this checkout's, in one run. */
function burstPair(name: string, current: () => Promise<unknown>): Promise<unknown> {
  if (!values.baseline) return current();
  // `--workers` only when given: a baseline older than the option does not know it.
  const workers = values.workers === '1,2' ? [] : ['--workers', values.workers];
  return withBaseline(values.baseline, name, ['--posts', values.posts, '--lead', values.lead, ...workers], current);
}
// The scale-out scenarios need PostgreSQL and Redis: only when named.
const chosen = positionals.length > 0 ? positionals : Object.keys(scenarios).filter((name) => !name.endsWith('-scale'));
const machine = { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30) };
for (const name of chosen) {
  const scenario = scenarios[name];
  if (!scenario) {
    process.stderr.write(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}\n`);
    process.exit(2);
  }
  const result = await scenario();
  process.stdout.write(
    `${JSON.stringify({ scenario: name, at: new Date().toISOString(), machine, seconds: Number(values.seconds), connections: Number(values.connections), result }, null, 2)}\n`,
  );
}
