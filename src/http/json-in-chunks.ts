import { setImmediate } from 'node:timers/promises';

/**
 * The items written by `stringify` and joined by commas (a JSON array's inside), `chunk` items at
 * a time with a turn of the event loop between chunks, so that writing a long list does not hold
 * every other request for its whole length.
 */
export async function joinInChunks<T>(items: readonly T[], stringify: (item: T) => string, chunk: number): Promise<string> {
  const pieces: string[] = [];
  for (let start = 0; start < items.length; start += chunk) {
    if (start > 0) await setImmediate();
    for (const item of items.slice(start, start + chunk)) pieces.push(stringify(item));
  }
  return pieces.join(',');
}
