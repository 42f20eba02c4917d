import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A minimal webhook receiver for benchmarks: records each delivery's id and arrival time. */
export async function startBenchReceiver() {
  const arrivals = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const id = String(req.headers['webhook-id'] ?? '');
    req.resume();
    req.on('end', () => {
      const list = arrivals.get(id) ?? [];
      list.push(Date.now());
      arrivals.set(id, list);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Schedules one post per channel for `due` through the API, 100 per request; resolves with the posts' ids. */
export async function scheduleBurst(apiUrl: string, key: string, channels: string[], due: Date, label: string): Promise<string[]> {
  const created: string[] = [];
  for (let i = 0; i < channels.length; i += 100) {
    const res = await fetch(`${apiUrl}/public/v1/posts`, {
      method: 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'schedule',
        date: due.toISOString(),
        posts: channels.slice(i, i + 100).map((id) => ({ integration: { id }, value: [{ content: `<p>${label}</p>` }] })),
      }),
    });
    if (res.status !== 200) throw new Error(`POST /posts answered ${res.status}: ${await res.text()}`);
    created.push(...((await res.json()) as Array<{ postId: string }>).map((p) => p.postId));
  }
  if (Date.now() >= due.getTime()) throw new Error('creating the posts took longer than the lead time; raise --lead');
  return created;
}

/** The deliveries of a burst's posts (the webhook's delivery id is stable per post and part: `msg_<post>_0`). */
export function burstArrivals(arrivals: Map<string, number[]>, posts: string[], due: Date) {
  const deliveries = posts.map((id) => `msg_${id}_0`);
  return {
    /** How many of the posts have arrived. */
    count: () => deliveries.reduce((n, id) => n + (arrivals.has(id) ? 1 : 0), 0),
    /** Lateness (first arrival minus the due instant) of each delivered post, sorted, and deliveries beyond the first. */
    summary() {
      const lists = deliveries.map((id) => arrivals.get(id)).filter((list) => list !== undefined);
      const times = lists.map((list) => list[0]! - due.getTime()).sort((a, b) => a - b);
      const last = times.at(-1) ?? Number.NaN;
      return {
        delivered: times.length,
        duplicates: lists.reduce((n, list) => n + list.length - 1, 0),
        latenessMs: { p50: percentile(times, 50), p99: percentile(times, 99), max: last, min: times[0] },
        postsPerSecond: Math.round((posts.length / Math.max(last, 1)) * 1000),
      };
    },
  };
}
