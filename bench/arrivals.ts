// An open load with random arrivals: requests sent at the moments of a Poisson process of `rate`
// per second (independent users), whatever the answers, each timed from the moment it was due to
// be sent until its whole answer was read (so a slow server or a late sender both count). The
// moments come from a seeded sequence: two runs with the same seed send at the same moments, so a
// comparison (alone, then with background work) differs only in what the server does.
//
// autocannon's `overallRate` instead sends each connection's share as fast as it can at the start
// of every second and then waits (a burst per second), and corrects for coordinated omission as if
// a request were due every millisecond; it fits a saturating closed loop, not this question.
//
// The sender runs in a worker thread, so work on the bench's own event loop (a local platform it
// serves) does not make it late.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool } from 'undici';
import type { Load } from './lib.ts';
import { percentile } from './receiver.ts';

export type ArrivalsOptions = { seconds: number; rate: number; seed: number; headers?: Record<string, string> };
export type ArrivalsResult = Load & {
  /** The 99th percentile of how late a request left the sender (its own delay, included in the latency). */
  sendLateP99: number;
  latencyP999: number;
  latencyMax: number;
  /** Every request's latency (ms), in order: for percentiles over several runs together. */
  latencies: number[];
};

/** Runs the load in a worker thread and resolves with its summary. */
export function randomArrivals(url: string, options: ArrivalsOptions): Promise<ArrivalsResult> {
  // The worker registers tsx before it loads this TypeScript file (on Node 20, `--import tsx` does not reach a worker's entry).
  const entry = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(entry, { eval: true, workerData: { url, options } });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the load worker exited (${code})`)));
  });
}

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The send moments (ms from the start) of a Poisson process of `rate` per second over `seconds`. */
export function arrivalTimes(options: Pick<ArrivalsOptions, 'seconds' | 'rate' | 'seed'>): number[] {
  const random = seeded(options.seed);
  const times: number[] = [];
  for (let t = 0; ;) {
    t += (-Math.log(1 - random()) * 1000) / options.rate;
    if (t >= options.seconds * 1000) return times;
    times.push(t);
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

async function run(url: string, options: ArrivalsOptions): Promise<ArrivalsResult> {
  const target = new URL(url);
  // Enough connections that a request never waits for one here unless the server is far behind.
  const pool = new Pool(target.origin, { connections: 64, keepAliveTimeout: 30_000 });
  const path = `${target.pathname}${target.search}`;
  const send = async () => {
    const res = await pool.request({ path, method: 'GET', headers: options.headers ?? {} });
    await res.body.dump();
    return res.statusCode;
  };
  // A few requests first, so connections are open before the measured ones.
  await Promise.all(Array.from({ length: 8 }, send));
  const times = arrivalTimes(options);
  const latencies: number[] = [];
  const late: number[] = [];
  let [errors, non2xx] = [0, 0];
  const pending: Array<Promise<void>> = [];
  const start = performance.now();
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now() - start;
      while (next < times.length && times[next]! <= now) {
        const due = times[next++]!;
        late.push(now - due);
        pending.push(
          send().then(
            (status) => {
              latencies.push(performance.now() - start - due);
              if (status < 200 || status > 299) non2xx += 1;
            },
            () => void (errors += 1),
          ),
        );
      }
      if (next >= times.length) return resolve();
      setTimeout(tick, Math.max(0, times[next]! - (performance.now() - start)));
    };
    tick();
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  late.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round(latencies.length / elapsed),
    latencyP50: round2(percentile(latencies, 50)),
    latencyP99: round2(percentile(latencies, 99)),
    latencyP999: round2(percentile(latencies, 99.9)),
    latencyMax: round2(latencies.at(-1) ?? 0),
    sendLateP99: round2(percentile(late, 99)),
    errors,
    non2xx,
    total: latencies.length,
    latencies,
  };
}

if (!isMainThread && workerData?.url) {
  const { url, options } = workerData as { url: string; options: ArrivalsOptions };
  parentPort!.postMessage(await run(url, options));
  process.exit(0);
}
