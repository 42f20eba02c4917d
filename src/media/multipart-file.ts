import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import '@fastify/multipart';
import { AppError, BadRequestError } from '../errors.ts';
import { formatBytes } from './media-content.ts';

/** Room for the multipart framing around the file itself. */
const FRAMING_BYTES = 64 * 1024;

const MALFORMED =
  /Unexpected end of (form|multipart data)|Part terminated early|Malformed part header|Boundary not found|Malformed content type|Multipart: /i;

/** Errors of the multipart parser are the client's (400); anything else (the disk, the store) is not. */
function asRequestError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const e = error as { code?: string; statusCode?: number; message?: string };
  if (e.code === 'FST_PARTS_LIMIT' || e.code === 'FST_FILES_LIMIT' || e.code === 'FST_FIELDS_LIMIT') {
    return new BadRequestError('Send exactly one part, the file, named "file".', { code: 'too_many_parts', cause: error });
  }
  if (e.code === 'FST_PROTO_VIOLATION' || e.code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return new BadRequestError('Send exactly one part, the file, named "file".', { code: 'unexpected_part', cause: error });
  }
  if (e.code === 'ERR_STREAM_PREMATURE_CLOSE') {
    return new BadRequestError('The upload ended before the file was complete (the multipart body is incomplete or malformed).', {
      code: 'bad_multipart',
      cause: error,
    });
  }
  if (typeof e.message === 'string' && MALFORMED.test(e.message)) {
    return new BadRequestError(`The multipart body is incomplete or malformed (${e.message}).`, { code: 'bad_multipart', cause: error });
  }
  return error;
}

/**
 * Reads a request that must be multipart/form-data carrying exactly one part: a file named
 * `file`. The file's stream goes to `stage` as it arrives; once it is staged, the rest of the
 * body is checked, and a second part discards what was staged. Nothing is kept on a 400.
 */
export async function receiveOneFile<T>(
  request: FastifyRequest,
  options: {
    /** The largest file any accepted type allows; larger declared bodies are refused unread. */
    maxBytes: number;
    stage: (file: Readable, name: string | undefined) => Promise<T>;
    discard: (staged: T) => Promise<void>;
  },
): Promise<T> {
  if (!request.isMultipart()) {
    throw new BadRequestError('Send the file as multipart/form-data, in one part named "file".', { code: 'not_multipart' });
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes + FRAMING_BYTES) {
    throw new AppError(413, 'too_large', `The upload is larger than the largest file accepted (${formatBytes(options.maxBytes)}).`, {
      details: { limit: options.maxBytes },
    });
  }
  let parts: AsyncIterableIterator<Awaited<ReturnType<FastifyRequest['file']>>>;
  let first;
  try {
    parts = request.parts({
      limits: { fileSize: options.maxBytes + 1, files: 2, fields: 10, parts: 12, fieldSize: 64 * 1024, headerPairs: 50 },
    }) as typeof parts;
    first = await parts.next();
  } catch (error) {
    throw asRequestError(error);
  }
  if (first.done || !first.value) {
    throw new BadRequestError('The request has no file: send it in a multipart/form-data part named "file".', { code: 'file_missing' });
  }
  const part = first.value;
  if (part.type !== 'file' || part.fieldname !== 'file') {
    if (part.type === 'file') part.file.resume();
    const what = part.type === 'file' ? `a file part named "${part.fieldname}"` : `a field named "${part.fieldname}"`;
    throw new BadRequestError(`Expected one part, a file named "file", but the request starts with ${what}.`, { code: 'unexpected_part' });
  }
  let staged: T;
  try {
    staged = await options.stage(part.file, part.filename || undefined);
  } catch (error) {
    // Read the rest of the body away, so the answer is not held up by a stalled parser.
    part.file.resume();
    throw asRequestError(error);
  }
  try {
    const next = await parts.next();
    if (!next.done && next.value) {
      if (next.value.type === 'file') next.value.file.resume();
      throw new BadRequestError('Send one file per request: this request has more than one part.', { code: 'too_many_parts' });
    }
  } catch (error) {
    await options.discard(staged);
    throw asRequestError(error);
  }
  return staged;
}
