// The server of the analytics scenario: `herald serve` (role all: the API, the publishing engine,
// the collector) in this process, with collection cycles run when the bench asks on standard input:
// `cycle` makes every followed channel and post due and runs one cycle, printing `cycle <json>`
// (`measured cycle`: with how long it held the event loop at a time);
// `loop` makes them due, answers `looping {}` and runs cycles until `stop` (which ends the one under
// way at its next platform call), then prints `looped <json>`.
import { PerformanceObserver } from 'node:perf_hooks';
import readline from 'node:readline';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { percentile } from './receiver.ts';

const server = await startServer(loadConfig(process.env));
const { db } = server.runtime;
const collector = server.runtime.services.analytics.collector;
// Cycles run only when the bench asks: the server's timer is put a day off, so no tick of its own
// collects during a load measured alone (a cycle stopped part way leaves channels due).
const idle = async () => {
  await collector.stop();
  collector.start(24 * 3_600_000, () => {});
};
await idle();
process.stdout.write(`listening ${(server.app.server.address() as { port: number }).port}\n`);

/** Makes every followed channel and post due now (one statement over 20,000 rows: not while the API is measured). */
async function makeDue(): Promise<void> {
  const now = new Date().toISOString();
  await db.updateTable('analytics_channels').set({ next_collect_at: now, account_next_at: now }).execute();
  await db.updateTable('analytics_posts').set({ next_collect_at: now }).execute();
}

/** How long the event loop was held at a time: a callback queued each turn notes the gaps between turns (the loop never sleeps meanwhile). */
function holds() {
  const gaps: number[] = [];
  const pauses: number[] = [];
  const gc = new PerformanceObserver((list) => list.getEntries().forEach((entry) => pauses.push(entry.duration)));
  gc.observe({ entryTypes: ['gc'] });
  let last = performance.now();
  let on = true;
  const turn = () => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
    if (on) setImmediate(turn);
  };
  setImmediate(turn);
  return () => {
    on = false;
    gc.disconnect();
    gaps.sort((a, b) => a - b);
    const over = (ms: number) => gaps.filter((gap) => gap > ms).length;
    const at = (p: number) => Number(percentile(gaps, p).toFixed(2));
    return {
      turns: gaps.length,
      p99: at(99),
      p999: at(99.9),
      max: at(100),
      over1ms: over(1),
      over2ms: over(2),
      over5ms: over(5),
      gcOver1ms: pauses.filter((ms) => ms > 1).length,
      gcOver5ms: pauses.filter((ms) => ms > 5).length,
      gcMax: Number(Math.max(0, ...pauses).toFixed(2)),
    };
  };
}

type Held = ReturnType<ReturnType<typeof holds>>;

/** One cycle: ticks until one finds nothing due; with `measure`, how long it held the event loop at a time. */
async function cycle(
  measure = false,
): Promise<{ ticks: number; channels: number; calls: number; parts: number; failures: number; ms: number; held?: Held }> {
  const total = { ticks: 0, channels: 0, calls: 0, parts: 0, failures: 0, ms: 0 };
  const held = measure ? holds() : null;
  const start = performance.now();
  for (;;) {
    const report = await collector.collectDue();
    // A stopped loop ends here: the channels left due wait for the next `loop` or `cycle`.
    if (report.channels === 0 || stopLoop) break;
    total.ticks += 1;
    total.channels += report.channels;
    total.calls += report.calls;
    total.parts += report.parts;
    total.failures += report.failures;
  }
  total.ms = Math.round(performance.now() - start);
  return held ? { ...total, held: held() } : total;
}

let looping: Promise<{ cycles: number; calls: number }> | null = null;
let stopLoop = false;
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line === 'cycle' || line === 'measured cycle') {
    await makeDue();
    process.stdout.write(`cycle ${JSON.stringify(await cycle(line === 'measured cycle'))}\n`);
  } else if (line === 'loop') {
    // Everything due before the answer (the bench starts its load after it); the cycle runs until `stop`.
    await makeDue();
    stopLoop = false;
    looping = (async () => {
      const done = { cycles: 0, calls: 0 };
      while (!stopLoop) {
        const report = await cycle();
        if (report.channels === 0) break;
        done.cycles += 1;
        done.calls += report.calls;
      }
      return done;
    })();
    process.stdout.write('looping {}\n');
  } else if (line === 'stop') {
    // Stops the cycle under way at its next platform call; what is left due waits for the next `loop` or `cycle`.
    stopLoop = true;
    await idle();
    process.stdout.write(`looped ${JSON.stringify(await looping)}\n`);
  } else if (line === 'exit') break;
}
await server.close();
process.exit(0);
