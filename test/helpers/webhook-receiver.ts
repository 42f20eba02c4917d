import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export type Delivery = { id: string; timestamp: string; signature: string; body: { type: string; data: Record<string, unknown> }; raw: string; at: number };

/** How the receiver answers the next deliveries; the default is 200 with `{id, url}`. */
export type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang' | 'drop' | 'hold';

/**
 * A local webhook receiver on loopback that records every delivery and answers as told:
 * scripted statuses (429 with Retry-After, 5xx, 401, 400), a hang (for timeouts), or a dropped connection.
 */
export async function startWebhookReceiver() {
  const deliveries: Delivery[] = [];
  const script: Answer[] = [];
  let fallback: Answer | null = null;
  let delayMs = 0;
  const hanging = new Set<http.ServerResponse>();
  const held: Array<() => void> = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      let body: Delivery['body'] = { type: '', data: {} };
      try {
        body = JSON.parse(raw) as Delivery['body'];
      } catch {
        // recorded as is
      }
      const id = String(req.headers['webhook-id'] ?? '');
      deliveries.push({ id, timestamp: String(req.headers['webhook-timestamp'] ?? ''), signature: String(req.headers['webhook-signature'] ?? ''), body, raw, at: Date.now() });
      for (const waiter of waiters.filter((w) => deliveries.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const n = deliveries.length;
      const ok: Answer = { status: 200, body: { id: `remote-${n}`, url: `https://receiver.example/p/${n}` } };
      const answer = script.shift() ?? fallback ?? ok;
      if (answer === 'hold') {
        held.push(() => {
          res.writeHead(ok.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(ok.body));
        });
        return;
      }
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      if (answer === 'drop') {
        req.socket.destroy();
        return;
      }
      const send = () => {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      };
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  afterAll(close);
  return {
    url,
    deliveries,
    /** Queues answers for the next deliveries, in order. */
    answer: (...answers: Answer[]) => script.push(...answers),
    /** Answers the deliveries held by a `'hold'` answer (200, as by default). */
    release: () => held.splice(0).forEach((answer) => answer()),
    /** Resolves once `count` deliveries in all have arrived. */
    received: (count: number) =>
      new Promise<void>((resolve) => {
        if (deliveries.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    /** Answers every delivery after `ms` milliseconds. */
    slow: (ms: number) => (delayMs = ms),
    /** Sets the answer once the script is used up (null for the default 200). */
    always: (answer: Answer | null) => (fallback = answer),
    close,
  };
}
