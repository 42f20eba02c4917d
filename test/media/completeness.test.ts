import { describe, expect, it } from 'vitest';
import { CompletenessCheck } from '../../src/media/completeness.ts';
import { ACCEPTED_TYPES, type AcceptedType } from '../../src/media/media-content.ts';
import { avif, bmp, gif, jpeg, mp4, png, tiff, webp } from '../helpers/media-files.ts';

const typeOf = (mimeType: string): AcceptedType => ACCEPTED_TYPES.find((t) => t.mimeType === mimeType)!;

/** Runs the check over `bytes` as they would stream in, `chunkSize` bytes at a time. */
async function check(mimeType: string, bytes: Buffer, chunkSize = 64 * 1024): Promise<void> {
  const completeness = new CompletenessCheck(typeOf(mimeType));
  for (let i = 0; i < bytes.length; i += chunkSize) completeness.take(bytes.subarray(i, i + chunkSize));
  await completeness.check('file', async (start, end) => bytes.subarray(start, Math.min(end + 1, bytes.length)));
}

const files: Array<[string, Buffer]> = [
  ['image/png', png(64, 48)],
  ['image/png', png(3, 2, [1, 2, 3], 5000)],
  ['image/jpeg', jpeg(64, 48)],
  ['image/gif', gif(40, 30)],
  ['image/webp', webp(16, 9)],
  ['image/bmp', bmp(20, 10)],
  ['image/tiff', tiff(12, 8)],
  ['image/avif', avif()],
  ['image/avif', avif(7)],
  ['video/mp4', mp4(320, 240, { mdatBytes: 4000 })],
  ['video/mp4', mp4(320, 240, { mdatBytes: 4000, moovFirst: false })],
];

describe('a whole file passes, however its bytes are split', () => {
  it.each(files.map(([type, bytes], i) => [`${type} #${i}`, type, bytes] as const))('%s', async (_label, type, bytes) => {
    for (const chunkSize of [1, 3, 7, 100, 64 * 1024])
      await expect(check(type, bytes, chunkSize), `chunks of ${chunkSize}`).resolves.toBeUndefined();
  });

  it('a JPEG with bytes after its end marker (a camera trailer) is whole', async () => {
    await expect(check('image/jpeg', Buffer.concat([jpeg(16, 16), Buffer.from('trailer data')]))).resolves.toBeUndefined();
  });
});

describe('a file cut short is refused with a 400 that says so', () => {
  it.each(files.map(([type, bytes], i) => [`${type} #${i}`, type, bytes] as const))('%s', async (_label, type, bytes) => {
    // Cut after the type is recognisable: the first 100 bytes, half, and all but the last byte.
    for (const length of [Math.min(100, bytes.length - 1), Math.floor(bytes.length / 2), bytes.length - 1]) {
      for (const chunkSize of [1, 64 * 1024]) {
        await expect(check(type, bytes.subarray(0, length), chunkSize), `${length} of ${bytes.length} bytes`).rejects.toMatchObject({
          statusCode: 400,
          code: 'truncated_file',
          message: expect.stringMatching(
            /^The (file|video) "file" (is incomplete: the \w+ ends before .+; it may have been cut off in transfer\. Upload the whole file\.|has no index)/,
          ),
        });
      }
    }
  });

  it("names what is missing: the PNG's IEND, the JPEG's EOI, the GIF's trailer", async () => {
    await expect(check('image/png', png(64, 48).subarray(0, 100))).rejects.toThrow(
      'The file "file" is incomplete: the PNG ends before its last chunk (IEND), after 100 bytes',
    );
    await expect(check('image/jpeg', jpeg(64, 48).subarray(0, 150))).rejects.toThrow(/the JPEG ends before its end marker \(EOI\)/);
    await expect(check('image/gif', gif(40, 30).subarray(0, 60))).rejects.toThrow(/the GIF ends before its trailer/);
  });

  it('an MP4 without its index (moov) is refused, even when its boxes are whole', async () => {
    const whole = mp4(320, 240, { mdatBytes: 4000, moovFirst: false });
    const moovAt = whole.lastIndexOf(Buffer.from('moov', 'latin1')) - 4;
    await expect(check('video/mp4', whole.subarray(0, moovAt))).rejects.toMatchObject({
      code: 'truncated_file',
      message: expect.stringMatching(/has no index \(no moov box\)/),
    });
  });

  it('a PNG whose chunk lengths lead nowhere, or that has no image data, is not a valid PNG', async () => {
    const noData = Buffer.concat([png(2, 2).subarray(0, 33), png(2, 2).subarray(-12)]);
    await expect(check('image/png', noData)).rejects.toMatchObject({
      code: 'damaged_file',
      message: expect.stringMatching(/not a valid PNG: it has no image data/),
    });
  });
});
