import { createHash } from 'node:crypto';

const S32 = '234567abcdefghijklmnopqrstuvwxyz';

function s32(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = S32[Number(value & 31n)]! + out;
    value >>= 5n;
  }
  return out;
}

/**
 * The record key of a post's part on Bluesky: a valid TID (`app.bsky.feed.post` records must
 * have one) computed from the post id, the part and what it says (its text and media), so
 * every attempt to publish the same content writes to the same key and a retry can never
 * create a second post, while an edited post gets a key of its own and its new text goes out
 * (an earlier record under the old key is never taken for it).
 *
 * A TID is 64 bits: a zero bit, 53 bits of microseconds since 1970, 10 bits of clock id. Both
 * fields come from SHA-256 of the post id and part; the time field keeps only 50 bits, so the
 * implied time always lies in the past (1970–2005) and never looks like a post from the future.
 * That leaves 60 bits of hash: collisions within one account are out of reach.
 */
export function recordKeyFor(input: { postId: string; part: number; text: string; media: ReadonlyArray<{ id: string }> }): string {
  const content = JSON.stringify([input.text, input.media.map((m) => m.id)]);
  const digest = createHash('sha256').update(`herald/bluesky/post\0${input.postId}\0${input.part}\0${content}`).digest();
  const bits = digest.readBigUInt64BE(0);
  const timestamp = bits >> 14n; // top 50 bits
  const clockId = bits & 1023n; // low 10 bits
  return s32(timestamp, 11) + s32(clockId, 2);
}

/** The syntax of a TID (atproto spec). */
export const TID_PATTERN = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;
