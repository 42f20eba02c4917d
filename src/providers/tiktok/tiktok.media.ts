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
