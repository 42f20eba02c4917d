import type http from 'node:http';
import { afterAll } from 'vitest';
import { ScriptedAnswers, sendReply, startFakeHttp } from './fake-http.ts';

export type Delivery = {
  id: string;
  timestamp: string;
  signature: string;
  body: { type: string; data: Record<string, unknown> };
  raw: string;
  at: number;
};

/** How the receiver answers the next deliveries; the default is 200 with `{id, url}`. */
export type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang' | 'drop' | 'hold';

/**
 * A local webhook receiver on loopback that records every delivery and answers as told:
 * scripted statuses (429 with Retry-After, 5xx, 401, 400), a hang (for timeouts), or a dropped connection.
 */
export async function startWebhookReceiver() {
  const deliveries: Delivery[] = [];
  const script = new ScriptedAnswers<void, Answer>();
  let fallback: Answer | null = null;
  let delayMs = 0;
  const hanging = new Set<http.ServerResponse>();
  const held: Array<() => void> = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const fake = await startFakeHttp((call, res) => {
    const raw = call.raw.toString('utf8');
    let body: Delivery['body'] = { type: '', data: {} };
    try {
      body = JSON.parse(raw) as Delivery['body'];
    } catch {
      // recorded as is
    }
    const header = (name: string) => String(call.headers[name] ?? '');
    deliveries.push({
      id: header('webhook-id'),
      timestamp: header('webhook-timestamp'),
      signature: header('webhook-signature'),
      body,
      raw,
      at: Date.now(),
    });
    for (const waiter of waiters.filter((w) => deliveries.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const n = deliveries.length;
    const ok = { status: 200, body: { id: `remote-${n}`, url: `https://receiver.example/p/${n}` } };
    const answer = script.take() ?? fallback ?? ok;
    if (answer === 'hold') held.push(() => sendReply(res, ok));
    else if (answer === 'hang') hanging.add(res);
    else if (answer === 'drop') res.socket?.destroy();
    else if (delayMs > 0) setTimeout(() => sendReply(res, answer), delayMs);
    else return answer;
  });
  const url = `${fake.url}/hook`;
  const close = async () => {
    for (const res of hanging) res.destroy();
    await fake.close();
  };
  afterAll(close);
  return {
    url,
    deliveries,
    /** Queues answers for the next deliveries, in order. */
    answer: (...answers: Answer[]) => script.next(...answers),
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
