import { callPlatform, type Platform, type PlatformAnswer } from '../platform-call.ts';
import { ProviderError, type ProviderContext } from '../provider.ts';
import { googleApp, googlePlatform } from '../google/google-oauth.ts';

/**
 * YouTube's resumable upload (developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 * a POST with the video's metadata opens an upload session (its URI in `Location`); the bytes go
 * up in PUTs with `Content-Range`, each answered 308 with the `Range` received so far until the
 * last, answered 200 or 201 with the video. After an interrupted PUT (no answer, or a 5xx) Herald
 * asks where the upload stands (`Content-Range: bytes *\/N`) and carries on from there; an
 * interrupted last PUT whose video was created is answered with that video, so it is never uploaded twice.
 */

/** Bytes per PUT: a multiple of 256 KiB, as the protocol requires of every chunk but the last. */
export const UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024;
/** Interruptions resumed within one upload before it is left to the engine's retry. */
const MAX_RESUMES = 5;
/** A chunk may take a while on a slow link. */
const CHUNK_TIMEOUT_MS = 5 * 60_000;

const UPLOAD: Platform = {
  ...googlePlatform('YouTube'),
  succeeded: (answer) => answer.status === 308 || (answer.status >= 200 && answer.status < 300),
};

type Ctx = Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>;

/** Where the session stands: the next byte to send, or the finished upload's answer. */
type Progress = { next: number; done?: PlatformAnswer };

function progressOf(answer: PlatformAnswer): Progress {
  if (answer.status !== 308) return { next: Number.NaN, done: answer };
  // `Range: bytes=0-N` is what the server has; none means nothing yet.
  const range = /^bytes=0-(\d+)$/.exec(answer.headers.get('range') ?? '');
  return { next: range ? Number(range[1]) + 1 : 0 };
}

/** Opens the upload session for a video of `size` bytes; the session URI. */
export async function openUploadSession(
  ctx: Ctx,
  token: string,
  video: { size: number; mimeType: string },
  metadata: unknown,
  query: Record<string, string>,
): Promise<string> {
  const base = googleApp(ctx.platformApps).youtube;
  const params = new URLSearchParams({ uploadType: 'resumable', part: 'snippet,status', ...query });
  const answer = await callPlatform(ctx, UPLOAD, `${base}/upload/youtube/v3/videos?${params.toString()}`, {
    token,
    json: metadata,
    contentType: 'application/json; charset=UTF-8',
    headers: { 'x-upload-content-length': String(video.size), 'x-upload-content-type': video.mimeType },
  });
  const location = answer.headers.get('location');
  let session: URL | null = null;
  try {
    session = location ? new URL(location) : null;
  } catch {
    session = null;
  }
  // The session is on YouTube's own upload host; anywhere else would be handed the token.
  if (!session || session.origin !== new URL(base).origin)
    throw new ProviderError('transient', 'YouTube did not open an upload session; the publish will be tried again.');
  return session.toString();
}

/** Asks where an interrupted upload stands. */
async function standing(ctx: Ctx, token: string, session: string, size: number): Promise<Progress> {
  try {
    const answer = await callPlatform(ctx, UPLOAD, session, {
      method: 'PUT',
      token,
      body: new Uint8Array(0),
      headers: { 'content-range': `bytes */${size}` },
    });
    return progressOf(answer);
  } catch (error) {
    if (error instanceof ProviderError && error.options.status === 404)
      throw new ProviderError('transient', 'The YouTube upload session expired; the upload will start again.', { status: 404 });
    throw error;
  }
}

/**
 * Sends the video through the session from the first byte YouTube lacks, reading one chunk at a
 * time from the library (`read`, an inclusive range); the finished upload's answer (the video).
 */
export async function sendBytes(
  ctx: Ctx,
  token: string,
  session: string,
  video: { size: number; read: (range: { start: number; end: number }) => Promise<Uint8Array> },
  chunkBytes = UPLOAD_CHUNK_BYTES,
) {
  const { size } = video;
  let next = 0;
  let resumes = 0;
  for (;;) {
    const end = Math.min(next + chunkBytes, size);
    // Read before the call: a library that cannot be read is not an interrupted upload.
    const body = end > next ? await video.read({ start: next, end: end - 1 }) : new Uint8Array(0);
    let progress: Progress;
    try {
      const answer = await callPlatform(ctx, UPLOAD, session, {
        method: 'PUT',
        token,
        body,
        contentType: 'application/octet-stream',
        headers: { 'content-range': size === 0 ? 'bytes */0' : `bytes ${next}-${end - 1}/${size}` },
        timeoutMs: CHUNK_TIMEOUT_MS,
        // The last bytes create the video: a lost answer to them may mean it exists.
        write: end === size,
      });
      progress = progressOf(answer);
    } catch (error) {
      const interrupted =
        error instanceof ProviderError &&
        (error.options.noAnswer?.kind === 'unreachable' || error.kind === 'transient' || error.kind === 'unknown_outcome');
      if (!interrupted || resumes >= MAX_RESUMES) throw error;
      resumes++;
      try {
        progress = await standing(ctx, token, session, size);
      } catch (asked) {
        if (end < size) throw asked;
        throw new ProviderError(
          'unknown_outcome',
          'The last part of the video went to YouTube without an answer, and YouTube could not be asked whether the video was created.',
          { cause: asked },
        );
      }
    }
    if (progress.done) return progress.done;
    if (!(progress.next >= 0 && progress.next <= size))
      throw new ProviderError('transient', 'YouTube answered the upload with a range Herald cannot follow; the upload will start again.');
    next = progress.next;
  }
}
