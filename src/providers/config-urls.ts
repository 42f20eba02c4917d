import * as z from 'zod';

/** Loopback host names and literals: the one place plain http is acceptable for a platform's API. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** An https URL, or plain http for a server on this machine (a local gateway or test server). */
export function isHttpsOrLoopback(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}

/**
 * A server people name by its host (a Mastodon or Lemmy instance) as its origin: `example.social`,
 * `https://example.social/` and `https://example.social/@x` are all `https://example.social`.
 */
export function instanceOriginSchema(example: string, description: string) {
  return z
    .string()
    .trim()
    .min(3)
    .max(300)
    .transform((value, ctx) => {
      try {
        const url = new URL(/^https?:\/\//i.test(value) ? value : `https://${value}`);
        if (url.username || url.password) throw new Error('credentials in the URL');
        return url.origin;
      } catch {
        ctx.addIssue({ code: 'custom', message: `an instance such as \`${example}\` or \`https://${example}\`` });
        return z.NEVER;
      }
    })
    .describe(description);
}
