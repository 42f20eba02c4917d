import type { Server } from 'node:http';
import { ChangeSignal, type Activity } from '../lib/activity.ts';

/** How long after the last answer the server still counts as busy: a client under load sends its next request within it. */
export const REQUEST_QUIET_MS = 20;

/**
 * The requests an HTTP server is answering, as an `Activity`: busy while one is in flight or
 * ended less than `REQUEST_QUIET_MS` ago. Counted on the Node server itself, so every request
 * counts, whatever route or hook answers it.
 */
export function requestActivity(server: Server): Activity {
  let inFlight = 0;
  let lastEnded = Number.NEGATIVE_INFINITY;
  const ended = new ChangeSignal();
  server.on('request', (_req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      lastEnded = performance.now();
      if (inFlight === 0) ended.notify();
    });
  });
  return {
    busy: () => inFlight > 0 || performance.now() - lastEnded < REQUEST_QUIET_MS,
    changed: (pollMs) => ended.wait(Math.min(pollMs, REQUEST_QUIET_MS)),
  };
}
