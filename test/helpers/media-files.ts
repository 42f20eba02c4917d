import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';

/**
 * Tiny real files of every type the media library accepts, made here rather than checked in.
 * Each takes a size and a colour (or other variation), so tests get distinct contents.
 */

type Rgb = [number, number, number];

function u16le(n: number) {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
function u32le(n: number) {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
function u16be(n: number) {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
function u32be(n: number) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buffer) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32be(data.length), body, u32be(crc32(body))]);
}

/** A truecolour PNG of one colour; `padding` adds a private ancillary chunk of that many random bytes. */
export function png(width: number, height: number, rgb: Rgb = [200, 40, 40], padding = 0): Buffer {
  const header = Buffer.concat([u32be(width), u32be(height), Buffer.from([8, 2, 0, 0, 0])]);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    ...(padding > 0 ? [pngChunk('prVt', randomBytes(padding))] : []),
    pngChunk('IDAT', zlib.deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A baseline greyscale JPEG of one grey level: DC coefficients only, standard DC table. */
export function jpeg(width: number, height: number, grey = 128): Buffer {
  const dcBits = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
  const dcValues = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const acBits = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const acValues = [0x00];
  const codes = (bits: number[], values: number[]) => {
    const table = new Map<number, { code: number; length: number }>();
    let code = 0;
    let k = 0;
    for (let length = 1; length <= 16; length++) {
      for (let i = 0; i < bits[length - 1]!; i++) table.set(values[k++]!, { code: code++, length });
      code <<= 1;
    }
    return table;
  };
  const dc = codes(dcBits, dcValues);
  const eob = codes(acBits, acValues).get(0)!;
  const segment = (marker: number, data: Buffer) => Buffer.concat([Buffer.from([0xff, marker]), u16be(data.length + 2), data]);

  const out: number[] = [];
  let acc = 0;
  let count = 0;
  const write = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) {
      acc = (acc << 1) | ((value >> i) & 1);
      if (++count === 8) {
        out.push(acc);
        if (acc === 0xff) out.push(0);
        acc = 0;
        count = 0;
      }
    }
  };
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  let previous = 0;
  for (let b = 0; b < blocks; b++) {
    const value = 8 * (grey - 128);
    const diff = value - previous;
    previous = value;
    const category = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
    const { code, length } = dc.get(category)!;
    write(code, length);
    if (category > 0) write(diff > 0 ? diff : (diff - 1) & ((1 << category) - 1), category);
    write(eob.code, eob.length);
  }
  if (count > 0) write((1 << (8 - count)) - 1, 8 - count);

  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.concat([Buffer.from('JFIF\0', 'latin1'), Buffer.from([1, 1, 0]), u16be(1), u16be(1), Buffer.from([0, 0])])),
    segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    segment(0xc0, Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])])),
    segment(0xc4, Buffer.from([0x00, ...dcBits, ...dcValues])),
    segment(0xc4, Buffer.from([0x10, ...acBits, ...acValues])),
    segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    Buffer.from(out),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** A GIF89a of one colour, LZW-coded with a clear code every two pixels (so codes stay 3 bits). */
export function gif(width: number, height: number, rgb: Rgb = [30, 120, 220]): Buffer {
  const codes: number[] = [];
  for (let i = 0; i < width * height; i++) {
    if (i % 2 === 0) codes.push(4);
    codes.push(0);
  }
  codes.push(5);
  const bytes: number[] = [];
  let acc = 0;
  let count = 0;
  for (const code of codes) {
    acc |= code << count;
    count += 3;
    while (count >= 8) {
      bytes.push(acc & 0xff);
      acc >>= 8;
      count -= 8;
    }
  }
  if (count > 0) bytes.push(acc & 0xff);
  const blocks: number[] = [];
  for (let i = 0; i < bytes.length; i += 255) {
    const block = bytes.slice(i, i + 255);
    blocks.push(block.length, ...block);
  }
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    u16le(width),
    u16le(height),
    Buffer.from([0x80, 0, 0, ...rgb, 0, 0, 0]),
    Buffer.from([0x2c]),
    u16le(0),
    u16le(0),
    u16le(width),
    u16le(height),
    Buffer.from([0, 2, ...blocks, 0, 0x3b]),
  ]);
}

/** A 24-bit BMP of one colour. */
export function bmp(width: number, height: number, rgb: Rgb = [10, 160, 90]): Buffer {
  const rowSize = Math.ceil((width * 3) / 4) * 4;
  const row = Buffer.alloc(rowSize);
  for (let x = 0; x < width; x++) row.set([rgb[2], rgb[1], rgb[0]], x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  const header = Buffer.concat([Buffer.from('BM', 'latin1'), u32le(54 + pixels.length), u32le(0), u32le(54)]);
  const info = Buffer.concat([
    u32le(40),
    u32le(width),
    u32le(height),
    u16le(1),
    u16le(24),
    u32le(0),
    u32le(pixels.length),
    u32le(2835),
    u32le(2835),
    u32le(0),
    u32le(0),
  ]);
  return Buffer.concat([header, info, pixels]);
}

/** An uncompressed little-endian RGB TIFF of one colour, in one strip. */
export function tiff(width: number, height: number, rgb: Rgb = [240, 200, 20]): Buffer {
  const entries: Array<[tag: number, type: number, count: number, value: number]> = [];
  const ifdOffset = 8;
  const entryCount = 10;
  const bitsOffset = ifdOffset + 2 + entryCount * 12 + 4;
  const pixelsOffset = bitsOffset + 6;
  const pixels = Buffer.from(Array.from({ length: width * height }, () => rgb).flat());
  entries.push([256, 4, 1, width], [257, 4, 1, height], [258, 3, 3, bitsOffset], [259, 3, 1, 1], [262, 3, 1, 2]);
  entries.push([273, 4, 1, pixelsOffset], [277, 3, 1, 3], [278, 4, 1, height], [279, 4, 1, pixels.length], [284, 3, 1, 1]);
  const ifd = Buffer.concat([
    u16le(entryCount),
    ...entries.map(([tag, type, count, value]) =>
      Buffer.concat([
        u16le(tag),
        u16le(type),
        u32le(count),
        type === 3 && count === 1 ? Buffer.concat([u16le(value), u16le(0)]) : u32le(value),
      ]),
    ),
    u32le(0),
  ]);
  return Buffer.concat([Buffer.from('II', 'latin1'), u16le(42), u32le(ifdOffset), ifd, u16le(8), u16le(8), u16le(8), pixels]);
}

/** A lossless WebP (VP8L) of one colour: five single-symbol prefix codes, zero bits per pixel. */
export function webp(width: number, height: number, rgb: Rgb = [120, 20, 160]): Buffer {
  const bits: number[] = [];
  const put = (value: number, count: number) => {
    for (let i = 0; i < count; i++) bits.push((value >> i) & 1);
  };
  put(width - 1, 14);
  put(height - 1, 14);
  put(0, 1); // alpha not used
  put(0, 3); // version
  put(0, 1); // no transform
  put(0, 1); // no colour cache
  put(0, 1); // no meta prefix codes
  for (const symbol of [rgb[1], rgb[0], rgb[2], 255, 0]) {
    put(1, 1); // simple code
    put(0, 1); // one symbol
    put(1, 1); // 8-bit symbol
    put(symbol, 8);
  }
  const stream = Buffer.alloc(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => {
    stream[i >> 3]! |= bit << (i & 7);
  });
  const data = Buffer.concat([Buffer.from([0x2f]), stream]);
  const chunk = Buffer.concat([
    Buffer.from('VP8L', 'latin1'),
    u32le(data.length),
    data,
    data.length % 2 ? Buffer.from([0]) : Buffer.alloc(0),
  ]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(4 + chunk.length), Buffer.from('WEBP', 'latin1'), chunk]);
}

/**
 * A 2×2 AVIF (an AV1 still image in a HEIF container), the one widely used to test browser
 * support. `variant` appends a `free` box, which changes the bytes and nothing else.
 */
export function avif(variant = 0): Buffer {
  const base = Buffer.from(
    'AAAAIGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZk1BMUIAAADybWV0YQAAAAAAAAAoaGRscgAAAAAAAAAAcGljdAAAAAAAAAAAAAAAAGxpYmF2aWYAAAAADnBpdG0AAAAAAAEAAAAeaWxvYwAAAABEAAABAAEAAAABAAABGgAAAB0AAAAoaWluZgAAAAAAAQAAABppbmZlAgAAAAABAABhdjAxQ29sb3IAAAAAamlwcnAAAABLaXBjbwAAABRpc3BlAAAAAAAAAAIAAAACAAAAEHBpeGkAAAAAAwgICAAAAAxhdjFDgQ0MAAAAABNjb2xybmNseAACAAIAAYAAAAAXaXBtYQAAAAAAAAABAAEEAQKDBAAAACVtZGF0EgAKCBgANogQEAwgMg8f8D///8WfhwB8+ErK42A=',
    'base64',
  );
  return variant === 0 ? base : Buffer.concat([base, box('free', u32be(variant))]);
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32be(8 + body.length), Buffer.from(type, 'latin1'), body]);
}
function fullBox(type: string, version: number, flags: number, ...payload: Buffer[]): Buffer {
  return box(type, Buffer.from([version, (flags >> 16) & 0xff, (flags >> 8) & 0xff, flags & 0xff]), ...payload);
}
const MATRIX = Buffer.concat([0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000].map(u32be));

/**
 * An MP4 (ISO BMFF, brand isom) with one video track of `width`×`height` and `mdatBytes` of
 * media data, lasting `seconds` (default 1) by its movie header. `moovFirst: false` puts the
 * movie box after the data, as cameras do.
 */
export function mp4(
  width: number,
  height: number,
  options: { mdatBytes?: number; moovFirst?: boolean; fill?: number; seconds?: number } = {},
): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32be(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const mvhd = fullBox(
    'mvhd',
    0,
    0,
    u32be(0),
    u32be(0),
    u32be(1000),
    u32be(Math.round((options.seconds ?? 1) * 1000)),
    u32be(0x10000),
    u16be(0x100),
    Buffer.alloc(10),
    MATRIX,
    Buffer.alloc(24),
    u32be(2),
  );
  const tkhd = fullBox(
    'tkhd',
    0,
    3,
    u32be(0),
    u32be(0),
    u32be(1),
    u32be(0),
    u32be(1000),
    Buffer.alloc(8),
    u16be(0),
    u16be(0),
    u16be(0),
    u16be(0),
    MATRIX,
    u32be(width * 0x10000),
    u32be(height * 0x10000),
  );
  const mdhd = fullBox('mdhd', 0, 0, u32be(0), u32be(0), u32be(1000), u32be(1000), u16be(0x55c4), u16be(0));
  const hdlr = fullBox('hdlr', 0, 0, u32be(0), Buffer.from('vide', 'latin1'), Buffer.alloc(12), Buffer.from('VideoHandler\0', 'latin1'));
  const empty = (type: string) => fullBox(type, 0, 0, u32be(0));
  const stbl = box('stbl', empty('stsd'), empty('stts'), empty('stsc'), fullBox('stsz', 0, 0, u32be(0), u32be(0)), empty('stco'));
  const minf = box(
    'minf',
    fullBox('vmhd', 0, 1, Buffer.alloc(8)),
    box('dinf', fullBox('dref', 0, 0, u32be(1), fullBox('url ', 0, 1))),
    stbl,
  );
  const moov = box('moov', mvhd, box('trak', tkhd, box('mdia', mdhd, hdlr, minf)));
  const mdat = box('mdat', Buffer.alloc(options.mdatBytes ?? 64, options.fill ?? 0x2a));
  return options.moovFirst === false ? Buffer.concat([ftyp, mdat, moov]) : Buffer.concat([ftyp, moov, mdat]);
}

export type Part = { name: string; filename?: string; contentType?: string; data: Buffer | string };

/** A multipart/form-data body and its Content-Type header. */
export function multipart(
  parts: Part[],
  boundary = `----herald${randomBytes(8).toString('hex')}`,
): { payload: Buffer; headers: Record<string, string> } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.contentType ?? (part.filename !== undefined ? 'application/octet-stream' : undefined);
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`));
    chunks.push(typeof part.data === 'string' ? Buffer.from(part.data) : part.data);
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** One file in the part named `file`, the way /upload takes it. */
export function fileBody(data: Buffer, filename = 'file.bin', contentType?: string) {
  return multipart([{ name: 'file', filename, data, ...(contentType && { contentType }) }]);
}
