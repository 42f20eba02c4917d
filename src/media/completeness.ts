import { BadRequestError } from '../errors.ts';
import type { AcceptedType } from './media-content.ts';

/**
 * Whether an uploaded file is whole: a file cut off in transfer still starts like a good one (and
 * shows its dimensions), and platforms refuse it only later. Each accepted type is checked by its
 * own structure as the bytes stream past, never holding the file: PNG chunks up to IEND, JPEG
 * segments and scan data up to the EOI marker, GIF blocks up to the trailer, the sizes WEBP and
 * BMP declare, ISO boxes (AVIF, MP4) that end exactly with the file, an MP4's index (`moov`), and
 * a TIFF's image data within the file (read back by range once stored).
 */

/** The next bytes a parser needs: `need` bytes from absolute offset `at`. */
type Want = { at: number; need: number };
/** What a parser says after reading what it asked for. */
type Step = Want | { scanFrom: number } | 'complete' | { damaged: string };

/**
 * Feeds a parser the bytes it asks for as chunks arrive, skipping the rest without copying.
 * The parser moves forward only; `scanFrom` hands over to a search for the next JPEG marker.
 */
abstract class StructureWalker {
  #want: Want | null = { at: 0, need: 0 };
  #scanFrom: number | null = null;
  #pending: Buffer[] = [];
  #pendingLength = 0;
  #offset = 0;
  status: 'walking' | 'complete' | { damaged: string } = 'walking';

  constructor(first: Want) {
    this.#want = first;
  }

  /** Where the walk expects the next structure to start (the end of the file, when it is whole for box formats). */
  get nextAt(): number | null {
    return this.#want?.at ?? this.#scanFrom;
  }

  protected abstract step(bytes: Buffer, at: number): Step;

  take(chunk: Buffer): void {
    const chunkStart = this.#offset;
    this.#offset += chunk.length;
    let pos = 0;
    while (this.status === 'walking' && pos < chunk.length) {
      if (this.#scanFrom !== null) {
        const from = Math.max(pos, this.#scanFrom - chunkStart);
        if (from >= chunk.length) return;
        const hit = chunk.indexOf(0xff, from);
        if (hit < 0) return;
        this.#scanFrom = null;
        this.#want = { at: chunkStart + hit, need: 2 };
        pos = hit;
        continue;
      }
      const want = this.#want!;
      const absolute = chunkStart + pos;
      if (want.at > absolute) {
        pos = Math.min(chunk.length, want.at - chunkStart);
        continue;
      }
      if (want.at + this.#pendingLength !== absolute) {
        this.status = { damaged: 'its structure points backwards' };
        return;
      }
      const part = chunk.subarray(pos, pos + (want.need - this.#pendingLength));
      this.#pending.push(part);
      this.#pendingLength += part.length;
      pos += part.length;
      if (this.#pendingLength < want.need) return;
      const bytes = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending);
      this.#pending = [];
      this.#pendingLength = 0;
      this.#advance(this.step(bytes, want.at), want.at);
    }
  }

  #advance(next: Step, from: number): void {
    if (next === 'complete') {
      this.status = 'complete';
      this.#want = null;
    } else if ('damaged' in next) {
      this.status = next;
      this.#want = null;
    } else if ('scanFrom' in next) {
      this.#want = null;
      this.#scanFrom = next.scanFrom;
    } else {
      if (next.at < from) {
        this.status = { damaged: 'its structure points backwards' };
        return;
      }
      if (next.need === 0) return this.#advance(this.step(Buffer.alloc(0), next.at), next.at);
      this.#want = next;
    }
  }
}

class PngWalker extends StructureWalker {
  #sawData = false;
  #inEnd = false;
  constructor() {
    super({ at: 8, need: 8 });
  }
  protected step(bytes: Buffer, at: number): Step {
    if (this.#inEnd) return 'complete';
    const length = bytes.readUInt32BE(0);
    const type = bytes.toString('latin1', 4, 8);
    if (length > 0x7fffffff) return { damaged: `a chunk declares ${length} bytes` };
    if (type === 'IDAT') this.#sawData = true;
    if (type === 'IEND') {
      if (!this.#sawData) return { damaged: 'it has no image data (IDAT)' };
      this.#inEnd = true;
      return { at: at + 8 + length, need: 4 };
    }
    return { at: at + 12 + length, need: 8 };
  }
}

const JPEG_STANDALONE = new Set([0x01, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8]);

class JpegWalker extends StructureWalker {
  #segment: 'marker' | 'length' | 'scanMarker' = 'marker';
  #marker = 0;
  constructor() {
    super({ at: 2, need: 2 });
  }
  protected step(bytes: Buffer, at: number): Step {
    if (this.#segment === 'length') {
      const length = bytes.readUInt16BE(0);
      if (length < 2) return { damaged: 'a segment declares a length under 2' };
      const end = at + length;
      this.#segment = 'marker';
      // Entropy-coded data follows a start of scan, up to the next marker.
      return this.#marker === 0xda ? { scanFrom: end } : { at: end, need: 2 };
    }
    const [ff, marker] = [bytes[0]!, bytes[1]!];
    if (ff !== 0xff) return this.#segment === 'scanMarker' ? { scanFrom: at + 1 } : { damaged: 'a segment does not start with a marker' };
    if (marker === 0xd9) return 'complete';
    if (marker === 0x00 || (marker >= 0xd0 && marker <= 0xd7)) return { scanFrom: at + 2 };
    if (marker === 0xff) return { at: at + 1, need: 2 };
    if (JPEG_STANDALONE.has(marker)) return { at: at + 2, need: 2 };
    this.#marker = marker;
    this.#segment = 'length';
    return { at: at + 2, need: 2 };
  }
}

class GifWalker extends StructureWalker {
  #state: 'screen' | 'block' | 'image' | 'subBlock' = 'screen';
  constructor() {
    super({ at: 0, need: 13 });
  }
  protected step(bytes: Buffer, at: number): Step {
    switch (this.#state) {
      case 'screen': {
        const flags = bytes[10]!;
        this.#state = 'block';
        return { at: 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0), need: 1 };
      }
      case 'block': {
        const introducer = bytes[0]!;
        if (introducer === 0x3b) return 'complete';
        if (introducer === 0x21) {
          this.#state = 'subBlock';
          return { at: at + 2, need: 1 };
        }
        if (introducer === 0x2c) {
          this.#state = 'image';
          return { at: at + 1, need: 9 };
        }
        return { damaged: `an unknown block (0x${introducer.toString(16)})` };
      }
      case 'image': {
        // The image descriptor (position, size, flags), its local colour table, one byte of LZW code size, then the data sub-blocks.
        const flags = bytes[8]!;
        this.#state = 'subBlock';
        return { at: at + 9 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0) + 1, need: 1 };
      }
      case 'subBlock': {
        const size = bytes[0]!;
        if (size === 0) this.#state = 'block';
        return { at: at + 1 + size, need: 1 };
      }
    }
  }
}

/** ISO base media boxes (AVIF, MP4): each top-level box's declared size leads to the next. */
class BoxWalker extends StructureWalker {
  readonly types = new Set<string>();
  #largeAt: number | null = null;
  constructor() {
    super({ at: 0, need: 8 });
  }
  protected step(bytes: Buffer, at: number): Step {
    if (this.#largeAt !== null) {
      const start = this.#largeAt;
      this.#largeAt = null;
      const size = Number(bytes.readBigUInt64BE(0));
      if (size < 16) return { damaged: 'a box declares a size under its header' };
      return { at: start + size, need: 8 };
    }
    const size = bytes.readUInt32BE(0);
    this.types.add(bytes.toString('latin1', 4, 8));
    if (size === 1) {
      this.#largeAt = at;
      return { at: at + 8, need: 8 };
    }
    // Size 0: the box runs to the end of the file.
    if (size === 0) return 'complete';
    if (size < 8) return { damaged: 'a box declares a size under its header' };
    return { at: at + size, need: 8 };
  }
}

/** Formats that declare their total size near the start (WEBP's RIFF size, BMP's file size). */
class DeclaredSizeWalker extends StructureWalker {
  #declared = false;
  constructor(
    need: number,
    private readonly sizeOf: (header: Buffer) => number,
  ) {
    super({ at: 0, need });
  }
  protected step(bytes: Buffer): Step {
    if (this.#declared) return 'complete';
    this.#declared = true;
    const size = this.sizeOf(bytes);
    // Ask for the last byte the header promises.
    return size > bytes.length ? { at: size - 1, need: 1 } : 'complete';
  }
}

function bmpSize(header: Buffer): number {
  const fileSize = header.readUInt32LE(2);
  if (fileSize > 0) return fileSize;
  // Some writers leave the file size 0: the pixel data's offset and size still tell.
  return header.readUInt32LE(10) + header.readUInt32LE(34);
}

export type ReadRange = (start: number, end: number) => Promise<Buffer>;

const TIFF_LIMIT_ENTRIES = 4096;
const TIFF_LIMIT_ARRAY_BYTES = 1024 * 1024;

/** The end of a TIFF's first image's data (strips or tiles), read by range; null when it cannot tell. */
async function tiffDataEnd(size: number, read: ReadRange): Promise<number | 'damaged' | null> {
  if (size < 8) return Infinity;
  const header = await read(0, 7);
  const little = header.toString('latin1', 0, 2) === 'II';
  const u16 = (b: Buffer, o: number) => (little ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (b: Buffer, o: number) => (little ? b.readUInt32LE(o) : b.readUInt32BE(o));
  if (u16(header, 2) !== 42) return null; // BigTIFF: not checked
  const ifd = u32(header, 4);
  if (ifd + 2 > size) return Infinity;
  const count = u16(await read(ifd, ifd + 1), 0);
  if (count === 0 || count > TIFF_LIMIT_ENTRIES) return 'damaged';
  if (ifd + 2 + count * 12 > size) return Infinity;
  const entries = await read(ifd + 2, ifd + 2 + count * 12 - 1);
  const values = async (tag: number): Promise<number[] | null> => {
    for (let i = 0; i < count; i++) {
      const e = i * 12;
      if (u16(entries, e) !== tag) continue;
      const type = u16(entries, e + 2);
      const n = u32(entries, e + 4);
      const width = type === 3 ? 2 : type === 4 ? 4 : 0;
      if (width === 0 || n === 0) return null;
      const bytes = n * width;
      let data: Buffer;
      if (bytes <= 4) data = entries.subarray(e + 8, e + 8 + bytes);
      else {
        const offset = u32(entries, e + 8);
        if (bytes > TIFF_LIMIT_ARRAY_BYTES) return null;
        if (offset + bytes > size) return [Infinity];
        data = await read(offset, offset + bytes - 1);
      }
      return Array.from({ length: n }, (_, k) => (width === 2 ? u16(data, k * 2) : u32(data, k * 4)));
    }
    return null;
  };
  const offsets = (await values(273)) ?? (await values(324));
  const counts = (await values(279)) ?? (await values(325));
  if (!offsets || !counts) return null;
  if (offsets.includes(Infinity) || counts.includes(Infinity)) return Infinity;
  let end = 0;
  for (let i = 0; i < Math.min(offsets.length, counts.length); i++) end = Math.max(end, offsets[i]! + counts[i]!);
  return end;
}

/** What is missing, in words for the error: "its end marker (IEND)". */
const MISSING: Readonly<Record<string, string>> = {
  'image/png': 'its last chunk (IEND)',
  'image/jpeg': 'its end marker (EOI)',
  'image/gif': 'its trailer',
  'image/webp': 'the size its RIFF header declares',
  'image/bmp': 'the size its header declares',
  'image/avif': 'the end of its last box',
  'image/tiff': 'the end of its image data',
  'video/mp4': 'the end of its last box',
};

/** Follows a file's structure while it streams in (`take`), then tells whether it is whole (`check`). */
export class CompletenessCheck {
  readonly #walker: StructureWalker | null;
  #size = 0;

  constructor(private readonly type: AcceptedType) {
    switch (type.mimeType) {
      case 'image/png':
        this.#walker = new PngWalker();
        break;
      case 'image/jpeg':
        this.#walker = new JpegWalker();
        break;
      case 'image/gif':
        this.#walker = new GifWalker();
        break;
      case 'image/webp':
        this.#walker = new DeclaredSizeWalker(12, (h) => h.readUInt32LE(4) + 8);
        break;
      case 'image/bmp':
        this.#walker = new DeclaredSizeWalker(38, bmpSize);
        break;
      case 'image/avif':
      case 'video/mp4':
        this.#walker = new BoxWalker();
        break;
      default:
        this.#walker = null;
    }
  }

  take(chunk: Buffer): void {
    this.#size += chunk.length;
    this.#walker?.take(chunk);
  }

  /** Throws a 400 naming what is missing when the file is incomplete or its structure is broken. */
  async check(name: string, read: ReadRange): Promise<void> {
    const label = this.type.label;
    const walker = this.#walker;
    let missing: string | null = null;
    if (walker && typeof walker.status === 'object') {
      throw new BadRequestError(`The file "${name}" is not a valid ${label}: ${walker.status.damaged}.`, { code: 'damaged_file' });
    }
    if (walker instanceof BoxWalker) {
      const whole = walker.status === 'complete' || walker.nextAt === this.#size;
      if (!whole) missing = MISSING[this.type.mimeType]!;
      else if (this.type.mimeType === 'video/mp4' && !walker.types.has('moov')) {
        throw new BadRequestError(
          `The video "${name}" has no index (no moov box), so it cannot be played; it may have been cut off, or written by a recorder that was stopped. Upload the whole file.`,
          {
            code: 'truncated_file',
          },
        );
      }
    } else if (walker) {
      if (walker.status !== 'complete') missing = MISSING[this.type.mimeType]!;
    } else if (this.type.mimeType === 'image/tiff') {
      const end = await tiffDataEnd(this.#size, read);
      if (end === 'damaged')
        throw new BadRequestError(`The file "${name}" is not a valid ${label}: its directory lies outside the file.`, {
          code: 'damaged_file',
        });
      if (end !== null && end > this.#size) missing = MISSING[this.type.mimeType]!;
    }
    if (missing) {
      throw new BadRequestError(
        `The file "${name}" is incomplete: the ${label} ends before ${missing}, after ${this.#size} bytes; it may have been cut off in transfer. Upload the whole file.`,
        {
          code: 'truncated_file',
        },
      );
    }
  }
}
