import { createHash, type Hash } from 'node:crypto';
import { AppError, BadRequestError } from '../errors.ts';
import { fileTypeFromBuffer, imageSize } from './decoders.ts';
import { MAX_DURATION_MS } from './media.schema.ts';

export type MediaKind = 'image' | 'video';

/** A content type the library accepts, as recognised from the file's first bytes. */
export type AcceptedType = { mimeType: string; type: MediaKind; extension: string; label: string };

const JPEG: AcceptedType = { mimeType: 'image/jpeg', type: 'image', extension: 'jpg', label: 'JPEG' };
const PNG: AcceptedType = { mimeType: 'image/png', type: 'image', extension: 'png', label: 'PNG' };
const GIF: AcceptedType = { mimeType: 'image/gif', type: 'image', extension: 'gif', label: 'GIF' };
const WEBP: AcceptedType = { mimeType: 'image/webp', type: 'image', extension: 'webp', label: 'WEBP' };
const AVIF: AcceptedType = { mimeType: 'image/avif', type: 'image', extension: 'avif', label: 'AVIF' };
const BMP: AcceptedType = { mimeType: 'image/bmp', type: 'image', extension: 'bmp', label: 'BMP' };
const TIFF: AcceptedType = { mimeType: 'image/tiff', type: 'image', extension: 'tif', label: 'TIFF' };
const MP4: AcceptedType = { mimeType: 'video/mp4', type: 'video', extension: 'mp4', label: 'MP4' };

/** By the MIME type file-type reports. An animated PNG is still a PNG. */
const ACCEPTED: Readonly<Record<string, AcceptedType>> = {
  'image/jpeg': JPEG,
  'image/png': PNG,
  'image/apng': PNG,
  'image/gif': GIF,
  'image/webp': WEBP,
  'image/avif': AVIF,
  'image/bmp': BMP,
  'image/tiff': TIFF,
  'video/mp4': MP4,
};

export const ACCEPTED_TYPES: readonly AcceptedType[] = [JPEG, PNG, GIF, WEBP, AVIF, BMP, TIFF, MP4];
export const ACCEPTED_SUMMARY = 'JPEG, PNG, GIF, WEBP, AVIF, BMP or TIFF images, or MP4 videos';

const BY_EXTENSION: Readonly<Record<string, string>> = Object.fromEntries(ACCEPTED_TYPES.map((t) => [t.extension, t.mimeType]));

/** The content type of a stored object, from the extension its key ends with. */
export function contentTypeOfKey(key: string): string | undefined {
  return BY_EXTENSION[key.slice(key.lastIndexOf('.') + 1)];
}

/** How many leading bytes type detection looks at (file-type's own sample size). */
export const SNIFF_BYTES = 4100;
/** How many leading bytes are kept for reading image dimensions. */
export const HEAD_BYTES = 1024 * 1024;

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GB`;
  if (bytes >= 1024 ** 2) return `${Number((bytes / 1024 ** 2).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

/**
 * Decides from the first bytes what a file is. The name and the declared type are never
 * trusted: a renamed or disguised file is refused for what it really is.
 */
export async function recogniseType(head: Buffer, name: string): Promise<AcceptedType> {
  if (head.length === 0) throw new BadRequestError(`The file "${name}" is empty.`, { code: 'empty_file' });
  const detected = await fileTypeFromBuffer(head);
  const accepted = detected && ACCEPTED[detected.mime];
  if (accepted) return accepted;
  const what = detected ? `a ${detected.ext.toUpperCase()} file (${detected.mime})` : 'not a recognised image or video';
  throw new BadRequestError(`The file "${name}" is ${what}. Accepted: ${ACCEPTED_SUMMARY}.`, {
    code: 'unsupported_type',
    details: { detected: detected?.mime ?? null },
  });
}

export class TooLargeError extends AppError {
  constructor(name: string, type: AcceptedType, limit: number) {
    super(
      413,
      'too_large',
      `The file "${name}" is too large: ${type.type === 'video' ? 'videos' : 'images'} can be at most ${formatBytes(limit)}.`,
      {
        details: { limit },
      },
    );
  }
}

/**
 * Watches bytes go by: counts them, hashes them, keeps the first `keep` bytes, and throws
 * TooLargeError as soon as the count passes the limit (before the chunk is passed on).
 */
export class ContentMeter {
  readonly #hash: Hash = createHash('sha256');
  readonly #head: Buffer[] = [];
  #headLength = 0;
  size = 0;

  constructor(
    private readonly limit: number,
    private readonly onTooLarge: () => Error,
    private readonly keep = HEAD_BYTES,
  ) {}

  take(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) throw this.onTooLarge();
    this.#hash.update(chunk);
    if (this.#headLength < this.keep) {
      const part = chunk.subarray(0, this.keep - this.#headLength);
      this.#head.push(part);
      this.#headLength += part.length;
    }
  }

  digest(): string {
    return this.#hash.digest('hex');
  }

  head(): Buffer {
    return Buffer.concat(this.#head);
  }
}

export type Dimensions = { width: number; height: number };

/** Width and height from an image's header, when it is within `head`; null otherwise. */
export function imageDimensions(head: Buffer): Dimensions | null {
  try {
    const size = imageSize(head);
    if (size.width && size.height && size.width > 0 && size.height > 0) {
      // EXIF orientations 5 to 8 turn the picture a quarter: what people see is the other way round.
      const turned = size.orientation !== undefined && size.orientation >= 5;
      return turned ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
    }
  } catch {
    // The header is beyond the first megabyte, or the format keeps it somewhere costly to reach.
  }
  return null;
}

type Box = { type: string; start: number; headerSize: number; size: number };

function boxAt(buffer: Buffer, offset: number, limit: number): Box | null {
  if (offset + 8 > limit) return null;
  let size = buffer.readUInt32BE(offset);
  const type = buffer.toString('latin1', offset + 4, offset + 8);
  let headerSize = 8;
  if (size === 1) {
    if (offset + 16 > limit) return null;
    size = Number(buffer.readBigUInt64BE(offset + 8));
    headerSize = 16;
  } else if (size === 0) {
    size = limit - offset;
  }
  if (size < headerSize || offset + size > limit) return null;
  return { type, start: offset, headerSize, size };
}

function children(buffer: Buffer, parent: { start: number; headerSize: number; size: number }): Box[] {
  const boxes: Box[] = [];
  const end = parent.start + parent.size;
  for (let offset = parent.start + parent.headerSize; boxes.length < 256;) {
    const box = boxAt(buffer, offset, end);
    if (!box) break;
    boxes.push(box);
    offset += box.size;
  }
  return boxes;
}

/** The display size of the first video track of a `moov` box. */
export function dimensionsFromMoov(moov: Buffer): Dimensions | null {
  let fallback: Dimensions | null = null;
  for (const trak of children(moov, { start: 0, headerSize: 8, size: moov.length }).filter((b) => b.type === 'trak')) {
    const parts = children(moov, trak);
    const tkhd = parts.find((b) => b.type === 'tkhd');
    if (!tkhd) continue;
    const content = tkhd.start + tkhd.headerSize;
    const version = moov[content];
    const at = content + (version === 1 ? 88 : 76);
    if (at + 8 > tkhd.start + tkhd.size) continue;
    const width = Math.round(moov.readUInt32BE(at) / 65536);
    const height = Math.round(moov.readUInt32BE(at + 4) / 65536);
    if (width <= 0 || height <= 0) continue;
    const mdia = parts.find((b) => b.type === 'mdia');
    const hdlr = mdia && children(moov, mdia).find((b) => b.type === 'hdlr');
    const handler =
      hdlr && hdlr.start + hdlr.headerSize + 12 <= hdlr.start + hdlr.size
        ? moov.toString('latin1', hdlr.start + hdlr.headerSize + 8, hdlr.start + hdlr.headerSize + 12)
        : null;
    if (handler === 'vide') return { width, height };
    fallback ??= { width, height };
  }
  return fallback;
}

/** A movie's length in milliseconds from its movie header (`mvhd`: timescale and duration), or null. */
export function durationFromMoov(moov: Buffer): number | null {
  const mvhd = children(moov, { start: 0, headerSize: 8, size: moov.length }).find((b) => b.type === 'mvhd');
  if (!mvhd) return null;
  const at = mvhd.start + mvhd.headerSize;
  const version = moov[at];
  const end = mvhd.start + mvhd.size;
  if (version === 1 ? at + 32 > end : at + 20 > end) return null;
  const [scale, duration] =
    version === 1
      ? [moov.readUInt32BE(at + 20), Number(moov.readBigUInt64BE(at + 24))]
      : [moov.readUInt32BE(at + 12), moov.readUInt32BE(at + 16)];
  // An unknown length is written as all ones.
  if (scale === 0 || duration === 0xffffffff || !Number.isSafeInteger(duration)) return null;
  const ms = Math.round((duration / scale) * 1000);
  return ms <= MAX_DURATION_MS ? ms : null;
}

/** What Herald reads from a video's `moov` box: its display size and its length. */
export type VideoFacts = { dimensions: Dimensions | null; durationMs: number | null };

/** The largest `moov` box worth reading for its dimensions. */
const MAX_MOOV_BYTES = 16 * 1024 * 1024;

/**
 * The display size and length of an MP4, read with a few small range reads: the top-level box
 * headers are walked (skipping `mdat` without reading it) until `moov`, wherever it is in the file.
 */
export async function mp4Facts(size: number, read: (start: number, end: number) => Promise<Buffer>): Promise<VideoFacts | null> {
  let offset = 0;
  for (let boxes = 0; boxes < 64 && offset + 8 <= size; boxes++) {
    const header = await read(offset, Math.min(offset + 16, size) - 1);
    if (header.length < 8) return null;
    let boxSize = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (boxSize === 1) {
      if (header.length < 16) return null;
      boxSize = Number(header.readBigUInt64BE(8));
    } else if (boxSize === 0) {
      boxSize = size - offset;
    }
    if (boxSize < 8 || offset + boxSize > size) return null;
    if (type === 'moov') {
      if (boxSize > MAX_MOOV_BYTES) return null;
      const moov = await read(offset, offset + boxSize - 1);
      return { dimensions: dimensionsFromMoov(moov), durationMs: durationFromMoov(moov) };
    }
    offset += boxSize;
  }
  return null;
}
