// npm run bench [-- <scenario> …] [--seconds N] [--connections N]
// Loopback only. Prints one JSON object per scenario.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { burstBench } from './burst.bench.ts';
import { integrationsBench } from './integrations.bench.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '20' }, posts: { type: 'string', default: '2000' }, lead: { type: 'string', default: '20' } },
});
const scenarios: Record<string, () => Promise<unknown>> = {
  integrations: () => integrationsBench({ seconds: Number(values.seconds), connections: Number(values.connections) }),
  burst: () => burstBench({ count: Number(values.posts), leadSeconds: Number(values.lead) }),
};
const chosen = positionals.length > 0 ? positionals : Object.keys(scenarios);
const machine = { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30) };
for (const name of chosen) {
  const scenario = scenarios[name];
  if (!scenario) {
    process.stderr.write(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}\n`);
    process.exit(2);
  }
  const result = await scenario();
  process.stdout.write(`${JSON.stringify({ scenario: name, at: new Date().toISOString(), machine, seconds: Number(values.seconds), connections: Number(values.connections), result }, null, 2)}\n`);
}
