import { useEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../client/api-types.ts';
import { api } from '../api.ts';

type Measure = components['schemas']['TextMeasure']['channels'][number];
/** One part's length as the platform counts it, its limit and whether it is over, in the platform's unit. */
export type ExactCount = Measure['parts'][number] & { unit: Measure['unit'] };

/** What one channel's count depends on: its thread (HTML, the post then its comments) and its settings. */
export type CountRequest = { channel: string; value: string[]; settings: Record<string, unknown> };

/** How long after the last keystroke the server is asked. */
export const COUNT_DELAY_MS = 300;
/** POST /posts/measure takes at most this many channels at once. */
const CHANNELS_PER_CALL = 20;

const keyOf = (request: CountRequest) => JSON.stringify([request.value, request.settings]);

/** Channels with the same thread go in one call (the settings ride along by channel). */
function calls(requests: CountRequest[]) {
  const byValue = new Map<string, CountRequest[]>();
  for (const request of requests) {
    const value = JSON.stringify(request.value);
    byValue.set(value, [...(byValue.get(value) ?? []), request]);
  }
  return [...byValue.values()].flatMap((same) => {
    const chunks: CountRequest[][] = [];
    for (let i = 0; i < same.length; i += CHANNELS_PER_CALL) chunks.push(same.slice(i, i + CHANNELS_PER_CALL));
    return chunks.map((chunk) => ({
      integrations: chunk.map((r) => r.channel),
      value: chunk[0]!.value.map((content) => ({ content })),
      settings: Object.fromEntries(chunk.map((r) => [r.channel, r.settings])),
      withText: false,
    }));
  });
}

/**
 * Each channel's exact count, by channel and part, from POST /posts/measure: asked
 * `COUNT_DELAY_MS` after the last change, one round of calls at a time (a change meanwhile is
 * asked for when it ends). A channel's answer is given only while its text and settings are still
 * those it was asked for: until the next answer, the caller shows its own estimate.
 */
export function useServerCounts(requests: CountRequest[]): Record<string, ExactCount[]> {
  const [answers, setAnswers] = useState<Record<string, { key: string; parts: ExactCount[] }>>({});
  const wanted = useRef<CountRequest[]>([]);
  const busy = useRef(false);
  const alive = useRef(true);
  const signature = JSON.stringify(requests);

  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );

  useEffect(() => {
    if (requests.length === 0) return;
    const timer = setTimeout(() => {
      wanted.current = requests;
      void ask();
    }, COUNT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [signature]);

  async function ask(): Promise<void> {
    if (busy.current) return;
    busy.current = true;
    const asked = wanted.current;
    const keys = new Map(asked.map((r) => [r.channel, keyOf(r)]));
    try {
      for (const body of calls(asked)) {
        const answer = await api('post', '/posts/measure', { body });
        if (!alive.current) return;
        const got = Object.fromEntries(
          answer.channels.map((c) => [
            c.integration,
            { key: keys.get(c.integration)!, parts: c.parts.map((p) => ({ ...p, unit: c.unit })) },
          ]),
        );
        setAnswers((all) => ({ ...all, ...got }));
      }
    } catch {
      // The estimate stays: a refused or failed count is not worth interrupting the writer for.
    } finally {
      busy.current = false;
    }
    // Changed while these calls ran: ask again for what is wanted now.
    if (alive.current && wanted.current !== asked && wanted.current.length > 0) void ask();
  }

  const current: Record<string, ExactCount[]> = {};
  for (const request of requests) {
    const answer = answers[request.channel];
    if (answer && answer.key === keyOf(request)) current[request.channel] = answer.parts;
  }
  return current;
}
