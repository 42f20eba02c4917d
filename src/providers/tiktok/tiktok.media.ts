const MB = 1024 * 1024;
/** TikTok takes a video under 5 MB in one piece, and larger ones in chunks of 5 to 64 MB (the last up to 128 MB). */
const WHOLE_BELOW = 5 * MB;
export const CHUNK_BYTES = 10 * MB;

/** How a file of `size` bytes is cut for TikTok's FILE_UPLOAD: chunk size, count, and each chunk's first and last byte. */
export function chunkPlan(size: number): { chunkSize: number; count: number; ranges: Array<[number, number]> } {
  const chunkSize = size < WHOLE_BELOW ? size : Math.min(CHUNK_BYTES, size);
  // TikTok counts whole chunks (floor); the remainder rides on the last one.
  const count = Math.max(1, Math.floor(size / chunkSize));
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) ranges.push([i * chunkSize, i === count - 1 ? size - 1 : (i + 1) * chunkSize - 1]);
  return { chunkSize, count, ranges };
}

/**
 * An MP4 or QuickTime file's duration in seconds, from its movie header (`moov`/`mvhd`), or
 * undefined when the file has none Herald can read.
 */
export function movieSeconds(bytes: Buffer): number | undefined {
  const moov = findBox(bytes, 0, bytes.length, 'moov');
  if (!moov) return undefined;
  const mvhd = findBox(bytes, moov[0], moov[1], 'mvhd');
  if (!mvhd) return undefined;
  const at = mvhd[0];
  if (at + 32 > bytes.length) return undefined;
  const version = bytes[at];
  const [scale, duration] =
    version === 1
      ? [bytes.readUInt32BE(at + 20), Number(bytes.readBigUInt64BE(at + 24))]
      : [bytes.readUInt32BE(at + 12), bytes.readUInt32BE(at + 16)];
  return scale > 0 ? duration / scale : undefined;
}

/** The payload (start, end) of the first box of `type` between `from` and `to`. */
function findBox(bytes: Buffer, from: number, to: number, type: string): [number, number] | undefined {
  for (let at = from; at + 8 <= to;) {
    let size = bytes.readUInt32BE(at);
    let header = 8;
    if (size === 1 && at + 16 <= to) {
      size = Number(bytes.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = to - at;
    if (size < header) return undefined;
    if (bytes.toString('latin1', at + 4, at + 8) === type) return [at + header, Math.min(to, at + size)];
    at += size;
  }
  return undefined;
}
