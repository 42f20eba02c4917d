import { wasNotSent, type AnswerHeaders, type OutboundAnswer, type OutboundInit } from '../net/outbound.ts';
import { ProviderError, type ProviderContext, type PublishMedia } from './provider.ts';

/** A platform's answer, read whole (bounded). */
export type PlatformAnswer = { status: number; headers: AnswerHeaders; text: string; json: unknown };

const ANSWER_LIMIT = 1024 * 1024;

/**
 * One request to a platform's API through the guarded client. What happens before an answer
 * arrives is mapped once for every provider: a refused address is a rejection (never a
 * credential problem), a request that certainly never left is transient, and anything else
 * (a timeout after sending, a reset) is an unknown outcome.
 */
export async function callPlatform(ctx: Pick<ProviderContext, 'outbound' | 'signal'>, platform: string, url: string, init: OutboundInit): Promise<PlatformAnswer> {
  let response: OutboundAnswer;
  try {
    response = await ctx.outbound.request(url, { maxRedirects: 0, ...init, limit: ANSWER_LIMIT, ...(ctx.signal && { signal: ctx.signal }) });
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'outbound_refused' || code === 'invalid_url' || code === 'port_refused') {
      throw new ProviderError('rejected', `${platform} was not called. ${(error as Error).message}`, { cause: error });
    }
    if (wasNotSent(error)) throw new ProviderError('transient', `${platform} could not be reached: ${(error as Error).message}`, { cause: error });
    throw new ProviderError('unknown_outcome', `${platform} did not answer in time; the request may or may not have been applied.`, { cause: error });
  }
  const text = response.body?.toString('utf8') ?? '';
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Seconds (possibly fractional) from a JSON field or a Retry-After header, as milliseconds. */
export function retryAfterMs(...candidates: unknown[]): number | undefined {
  for (const value of candidates) {
    const seconds = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  }
  return undefined;
}

/** Reads a media file's bytes; a library that cannot be read now is a transient failure. */
export async function readMedia(item: PublishMedia): Promise<Buffer> {
  try {
    return await item.read();
  } catch (error) {
    throw new ProviderError('transient', `Could not read ${item.name} from the media library: ${(error as Error).message}`, { cause: error });
  }
}

/** A multipart/form-data body as bytes and its content type (with the boundary). */
export async function multipartBody(form: FormData): Promise<{ body: Uint8Array; contentType: string }> {
  const encoded = new Response(form);
  return { body: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}
