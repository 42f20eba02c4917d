import { graph, graphVideo, readGraphError } from '../graph-api.ts';
import { field, waitFor } from '../oauth-api.ts';
import { callPlatform, JSON_API_HEADERS, readMedia, type PlatformAnswer, type Platform } from '../platform-call.ts';
import type { PlatformApps } from '../platform-apps.ts';
import { ProviderError } from '../provider.ts';
import type * as P from '../provider.ts';

/**
 * Waits between reads of a video's status while Facebook fetches and processes it: at once, then
 * quickly, then every 30 seconds, about five minutes in all.
 */
export const VIDEO_POLL_DELAYS_MS = [0, 2000, 3000, 5000, 10_000, 20_000, ...Array<number>(9).fill(30_000)];
/** Waits before sending a chunk again after it failed (on the engine's clock); one more failure gives up. */
export const CHUNK_RETRY_DELAYS_MS = [2000, 5000, 15_000, 30_000];
/** One upload request (a chunk, a reel's bytes) may take this long. */
const UPLOAD_TIMEOUT_MS = 10 * 60_000;

type Page = { accessToken: string; pageId: string };

/** The phases of a video's `status` (Graph API Video Status): each `not_started`, `in_progress`, `complete` or `error`. */
const VIDEO_PHASES = ['uploading_phase', 'processing_phase', 'publishing_phase'] as const;

/** Facebook's own words for a video that failed: the failed phases' `errors[].message`, or its `video_status`. */
function videoFailure(status: unknown): string | null {
  const messages: string[] = [];
  let failed = false;
  for (const phase of VIDEO_PHASES) {
    if (field(status, phase, 'status') !== 'error') continue;
    failed = true;
    const errors = field(status, phase, 'errors');
    for (const error of Array.isArray(errors) ? errors.slice(0, 5) : []) {
      const message = field(error, 'message');
      if (typeof message === 'string' && message.trim()) messages.push(message.trim().replace(/\.+$/, ''));
    }
  }
  const overall = field(status, 'video_status');
  if (overall === 'expired') return 'the upload expired before Facebook processed the video';
  if (!failed && overall !== 'error' && overall !== 'upload_failed') return null;
  return messages.length > 0 ? messages.join('; ') : 'Facebook could not process it';
}

/**
 * Follows an uploaded video or reel (`GET /{video}?fields=status`) until Facebook has processed
 * and published it, waiting on the engine's clock. Facebook has the video from the upload on: a
 * processing error is a refusal in Facebook's words, while a status that cannot be read, or a
 * video still processing when Herald stops waiting, is an unknown outcome (uploading it again
 * could post it twice).
 */
export async function videoPublished(ctx: P.ProviderContext, token: string, id: string, what = 'video'): Promise<void> {
  for (const delay of VIDEO_POLL_DELAYS_MS) {
    if (delay) await waitFor(ctx, delay);
    let status: unknown;
    try {
      ({ json: status } = await graph(ctx, 'facebook', `/${encodeURIComponent(id)}?fields=status`, { token }));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new ProviderError(
        'unknown_outcome',
        `Facebook received the ${what}, but Herald could not learn whether it was published (${why}); check the page.`,
        { cause: error },
      );
    }
    status = field(status, 'status');
    const failure = videoFailure(status);
    if (failure) throw new ProviderError('rejected', `Facebook did not publish the ${what}: ${failure}.`);
    const publishing = field(status, 'publishing_phase', 'status');
    if (field(status, 'video_status') === 'ready' && (publishing === undefined || publishing === 'complete')) return;
  }
  throw new ProviderError(
    'unknown_outcome',
    `Facebook received the ${what} but was still processing it when Herald stopped waiting; check the page before publishing it again.`,
  );
}

/** The id a write answered with; none means it may have happened without Herald knowing its id. */
export function writtenId(json: unknown, key = 'id'): string {
  const id = field(json, key);
  if (typeof id !== 'string' || !id) throw new ProviderError('unknown_outcome', "Facebook published without saying the post's id.");
  return id;
}

/** A page video Facebook fetches from Herald's media URL (`/{page}/videos` with `file_url`). */
export async function videoByUrl(ctx: P.ProviderContext, page: Page, fileUrl: string, text: string): Promise<string> {
  const { json } = await graph(ctx, 'facebook', `/${encodeURIComponent(page.pageId)}/videos`, {
    token: page.accessToken,
    write: true,
    form: { file_url: fileUrl, ...(text && { description: text }) },
  });
  return writtenId(json);
}

/** `{start_offset, end_offset}` as numbers, when they are a valid range. */
function offsets(value: unknown): { start: number; end: number } | null {
  const start = Number(field(value, 'start_offset'));
  const end = Number(field(value, 'end_offset'));
  return Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && end >= start ? { start, end } : null;
}

/**
 * The offsets a refused chunk names: Facebook answers a chunk sent from the wrong offset with
 * subcode 1363037 and the range it wants next, in `error_data` (an object or its JSON) or in the
 * message's words ("error_data:{start_offset:0,end_offset:392695}").
 */
function offsetsInRefusal(answer: PlatformAnswer): { start: number; end: number } | null {
  const error = field(answer.json, 'error');
  if (Number(field(error, 'error_subcode')) !== 1363037) return null;
  let data = field(error, 'error_data');
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      // Not JSON: the words below may still say it.
    }
  }
  const read = offsets(data);
  if (read) return read;
  const words = [field(error, 'message'), field(error, 'error_user_msg')].filter((v) => typeof v === 'string').join(' ');
  const start = /start_offset\D{0,3}(\d+)/.exec(words);
  const end = /end_offset\D{0,3}(\d+)/.exec(words);
  return start && end ? offsets({ start_offset: start[1], end_offset: end[1] }) : null;
}

/**
 * A page video sent by Herald in chunks (Graph API resumable upload: `/{page}/videos` with
 * `upload_phase` start, transfer, finish). Facebook names each next range (`start_offset`,
 * `end_offset`); a chunk that fails (no answer, a 5xx, an upload error Facebook says to retry) is
 * sent again from the same offset after a wait, and one Facebook already had is answered with the
 * offset it wants (1363037), from which Herald goes on. Nothing is published before `finish`, whose
 * lost answer is an unknown outcome.
 */
export async function videoInChunks(ctx: P.ProviderContext, page: Page, item: P.PublishMedia, text: string): Promise<string> {
  const path = `/${encodeURIComponent(page.pageId)}/videos`;
  const token = page.accessToken;
  const { json: started } = await graphVideo(ctx, path, { token, form: { upload_phase: 'start', file_size: String(item.size) } });
  const session = field(started, 'upload_session_id');
  const videoId = field(started, 'video_id');
  let range = offsets(started);
  if (typeof session !== 'string' || typeof videoId !== 'string' || !range)
    throw new ProviderError('transient', 'Facebook did not open an upload session for the video.');
  let failures = 0;
  while (range.start < range.end) {
    const { start } = range;
    const end = Math.min(range.end, item.size);
    if (start >= end) throw new ProviderError('transient', `Facebook asked for bytes ${start}–${range.end} of a ${item.size}-byte video.`);
    const chunk = await readMedia(item, { start, end: end - 1 });
    const form = new FormData();
    form.set('upload_phase', 'transfer');
    form.set('upload_session_id', session);
    form.set('start_offset', String(start));
    form.set('video_file_chunk', new Blob([new Uint8Array(chunk)], { type: 'application/octet-stream' }), item.name);
    let next: { start: number; end: number } | null;
    try {
      const answer = await graphVideo(ctx, path, {
        token,
        multipart: form,
        timeoutMs: UPLOAD_TIMEOUT_MS,
        accept: (a) => offsetsInRefusal(a) !== null,
      });
      next = answer.status < 300 ? offsets(answer.json) : offsetsInRefusal(answer);
      if (!next) throw new ProviderError('transient', 'Facebook did not say which part of the video to send next.');
    } catch (error) {
      // An upload chunk creates nothing: what failed is sent again, from the offset Facebook last named.
      if (!(error instanceof ProviderError) || !['transient', 'unknown_outcome'].includes(error.kind)) throw error;
      const delay = CHUNK_RETRY_DELAYS_MS[failures++];
      if (delay === undefined)
        throw new ProviderError('transient', `The video's upload to Facebook kept failing at byte ${start}: ${error.message}`, {
          cause: error,
        });
      await waitFor(ctx, delay);
      continue;
    }
    if (next.start > start) failures = 0;
    else if (CHUNK_RETRY_DELAYS_MS[failures++] === undefined)
      throw new ProviderError('transient', `Facebook did not take the video's bytes from ${start} on.`);
    range = next;
  }
  const { json: finished } = await graphVideo(ctx, path, {
    token,
    write: true,
    form: { upload_phase: 'finish', upload_session_id: session, ...(text && { description: text }) },
  });
  if (field(finished, 'success') !== true)
    throw new ProviderError('unknown_outcome', 'Facebook finished the upload without saying whether the video was published.');
  return videoId;
}

/** Reels' upload host answers `{debug_info: {retriable, type, message}}` when it refuses, Graph errors otherwise. */
const RUPLOAD: Platform = {
  name: 'Facebook',
  headers: JSON_API_HEADERS,
  timeoutMs: UPLOAD_TIMEOUT_MS,
  readError(answer) {
    if (field(answer.json, 'error')) return readGraphError(answer);
    const message = field(answer.json, 'debug_info', 'message');
    return {
      reason: typeof message === 'string' ? message : undefined,
      ...(field(answer.json, 'debug_info', 'retriable') === true && { kind: 'transient' as const }),
    };
  },
};

/**
 * Whether Facebook's `upload_url` is one Herald sends the page token to: Facebook's upload host
 * (rupload.facebook.com), or under an API base override that origin only.
 */
function uploadHostAllowed(platformApps: PlatformApps, url: unknown): url is string {
  if (typeof url !== 'string') return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const override = platformApps.apps.facebook.apiBase;
  if (override) return parsed.origin === new URL(override).origin;
  return parsed.protocol === 'https:' && parsed.hostname === 'rupload.facebook.com';
}

/**
 * A reel (Reels Publishing API): `POST /{page}/video_reels` `upload_phase=start` for a video id
 * and an upload URL; the bytes to that URL (`Authorization: OAuth`, `offset`, `file_size`); then
 * `upload_phase=finish` with `video_state=PUBLISHED` and the description; then followed until
 * Facebook has processed and published it. Start and upload create nothing visible (a failure
 * there is tried again whole); a lost answer to `finish` is an unknown outcome.
 */
export async function publishReel(ctx: P.ProviderContext, page: Page, item: P.PublishMedia, text: string): Promise<P.PublishedRef> {
  const path = `/${encodeURIComponent(page.pageId)}/video_reels`;
  const token = page.accessToken;
  const { json: started } = await graph(ctx, 'facebook', path, { token, form: { upload_phase: 'start' } });
  const videoId = field(started, 'video_id');
  const uploadUrl = field(started, 'upload_url');
  if (typeof videoId !== 'string' || !videoId)
    throw new ProviderError('transient', 'Facebook did not open an upload session for the reel.');
  if (!uploadHostAllowed(ctx.platformApps, uploadUrl))
    throw new ProviderError('rejected', "Facebook named an upload address that is not Facebook's upload host; the reel was not sent.");
  const bytes = await readMedia(item);
  const { json: uploaded } = await callPlatform(ctx, RUPLOAD, uploadUrl, {
    headers: { authorization: `OAuth ${token}`, offset: '0', file_size: String(bytes.length) },
    body: bytes,
    timeoutMs: UPLOAD_TIMEOUT_MS,
  });
  if (field(uploaded, 'success') !== true) throw new ProviderError('transient', 'Facebook did not confirm it received the reel.');
  const { json: finished } = await graph(ctx, 'facebook', path, {
    token,
    write: true,
    form: { upload_phase: 'finish', video_id: videoId, video_state: 'PUBLISHED', ...(text && { description: text }) },
  });
  if (field(finished, 'success') !== true)
    throw new ProviderError('unknown_outcome', 'Facebook finished the reel without saying whether it was published; check the page.');
  await videoPublished(ctx, token, videoId, 'reel');
  return { id: videoId, url: `https://www.facebook.com/reel/${videoId}` };
}
